/**
 * Where a secret given to the CLI comes from: a file named by its `--<name>-file` flag (what the
 * docs show), an environment variable, or its own flag (discouraged: `ps` shows a process's
 * arguments to every user of the machine). Checked before anything starts; a message names the
 * flag and never holds the secret.
 *
 * @internal
 */
import { Option, Redacted, Result } from "effect"
import { readFileSync } from "node:fs"

/**
 * A secret's flags, its file flag and its environment variable, as they are named.
 */
export interface SecretNames {
  readonly flag: string
  readonly fileFlag: string
  readonly env: string
}

/**
 * A file flag's value as it may be printed: a path (it holds a `/`) as it is; anything else is not
 * shown, since it may be the secret itself given by mistake (`--api-key-file $MORALIS_API_KEY`).
 */
const shown = (path: string): string => path.includes("/") ? JSON.stringify(path) : "the file given (not shown: with no / in it, it may be the secret itself)"

/**
 * The secret given, else `undefined` when none was: from its flag, else its file (the file's text
 * without its trailing newlines), else its environment variable (unset or blank: none). Fails
 * with a message naming the flag when both the flag and the file are given, or the file cannot
 * be read, or is empty.
 */
export const secretOf = (
  names: SecretNames,
  given: { readonly value: Option.Option<Redacted.Redacted<string>>; readonly file: Option.Option<string> },
  env: Record<string, string | undefined> = process.env
): Result.Result<Redacted.Redacted<string> | undefined, string> => {
  if (Option.isSome(given.value) && Option.isSome(given.file)) {
    return Result.fail(`${names.flag} and ${names.fileFlag} were both given: give only ${names.fileFlag} (or set ${names.env})`)
  }
  if (Option.isSome(given.value)) return Result.succeed(given.value.value)
  if (Option.isSome(given.file)) {
    const path = given.file.value
    let text: string
    try {
      text = readFileSync(path, "utf8")
    } catch (error) {
      const code = (error as { readonly code?: unknown }).code
      return Result.fail(
        `${names.fileFlag}: cannot read ${shown(path)}${typeof code === "string" ? ` (${code})` : ""}: expected a readable file holding the secret`
      )
    }
    const secret = text.replace(/[\r\n]+$/, "")
    if (secret.trim() === "") return Result.fail(`${names.fileFlag}: ${shown(path)} is empty: expected a file holding the secret`)
    return Result.succeed(Redacted.make(secret))
  }
  const fromEnv = env[names.env]
  return Result.succeed(fromEnv === undefined || fromEnv.trim() === "" ? undefined : Redacted.make(fromEnv))
}
