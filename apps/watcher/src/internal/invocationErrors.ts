/**
 * How the command line reports a wrong invocation (a mistyped flag, a bad flag value): each error
 * once, on one line, then one line pointing to the command's `--help`; not the whole help first.
 * Help and the version, when asked for, are printed as the library prints them.
 *
 * @internal
 */
import { Console, Effect, Layer } from "effect"
import { type CliError, CliOutput } from "effect/cli"

/** One error, on one line, said once. */
const describe = (error: CliError.NonShowHelpErrors): string => {
  switch (error._tag) {
    case "UnrecognizedOption":
      return `unknown flag ${error.option}${error.suggestions.length > 0 ? ` (did you mean ${error.suggestions.join(" or ")}?)` : ""}`
    case "InvalidValue": {
      // Our flags' parsers already name the flag and the value ("--interval: expected ..., got "5x"").
      const name = error.kind === "flag" ? `--${error.option}` : `<${error.option}>`
      if (error.expected.startsWith(name)) return error.expected
      const expected = /^Expected:? /.test(error.expected) ? error.expected : `Expected: ${error.expected}`
      return `${name}: "${error.value}". ${expected}`
    }
    default:
      return error.message.replace(/\s*\n\s*/g, " ").trim()
  }
}

/**
 * The errors worth saying: a mistyped flag's value, taken for a subcommand or an argument, is no
 * error of its own (`--intervl 5s` is one mistake, not two).
 */
const worthSaying = (errors: ReadonlyArray<CliError.NonShowHelpErrors>): ReadonlyArray<CliError.NonShowHelpErrors> =>
  errors.some((error) => error._tag === "UnrecognizedOption")
    ? errors.filter((error) => error._tag !== "UnknownSubcommand" && error._tag !== "UnexpectedArgument")
    : errors

/**
 * The presenter of the command line: a wrong invocation is its errors, each as
 * `chainquery-watcher: <error>`, then `run <command> --help for its flags and examples`, on the
 * console's stderr (the executable's console redacts secrets).
 */
export const presenter: Layer.Layer<never> = CliOutput.layerPresenter({
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.gen(function*() {
        for (const error of worthSaying(event.errors)) yield* Console.error(`chainquery-watcher: ${describe(error)}`)
        yield* Console.error(`run ${event.commandPath.join(" ")} --help for its flags and examples`)
      })
      : CliOutput.defaultPresenter.present(event)
})
