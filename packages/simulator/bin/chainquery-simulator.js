#!/usr/bin/env node
// The `chainquery-simulator` command. A committed shim, so the bin exists before the package is
// built (pnpm links bins at install time); the program itself is the built dist/bin.js.
import "../dist/bin.js"
