/**
 * The `real` wire flavour. service.md gives some fields a JSON type that the real service's
 * captured 200 responses (`packages/schema/test/fixtures`, the synthetic swagger examples left
 * out) do not use: indexes as strings where the service sends numbers, flags as `"true"` where it
 * sends `true`, token properties as JSON text where it sends the object. The simulator follows
 * service.md by default (`spec`); with `real`, the front door rewrites each 200 answer of an
 * operation so that these fields carry the captured type, values unchanged in meaning.
 *
 * Only types are rewritten: values the simulator does not compute stay as service.md allows them
 * (`total` of A2, A3 and A5 is `null`, where captures sometimes show a count).
 *
 * @internal
 */
import type { OperationId } from "./Routes.js"

/**
 * The two wire flavours: `spec` (service.md's types, the default) and `real` (the captured
 * responses' types).
 *
 * `wireFlavours.includes("real")` is true.
 */
export const wireFlavours = ["spec", "real"] as const

/** A wire flavour: `"spec"` or `"real"`. */
export type WireFlavour = (typeof wireFlavours)[number]

/**
 * Why a wire flavour is not valid, or `undefined` when it is one of {@link wireFlavours}.
 *
 * `wireProblem("real")` is `undefined`; `wireProblem("raw")` is
 * `'wire must be "spec" or "real", got "raw"'`.
 */
export const wireProblem = (wire: unknown): string | undefined =>
  (wireFlavours as ReadonlyArray<unknown>).includes(wire)
    ? undefined
    : `wire must be ${wireFlavours.map((flavour) => JSON.stringify(flavour)).join(" or ")}, got ${JSON.stringify(wire) ?? String(wire)}`

/** The JSON type a field takes in the `real` flavour. */
export type RealType = "number" | "boolean" | "string" | "object"

const transferIndexes = [["result[].transaction_index", "number"], ["result[].log_index", "number"]] as const
const spamFlag = ["result[].possible_spam", "boolean"] as const
const tokenProperties = [["result[].token_properties", "object"]] as const

/**
 * Per operation, each field (as a key path, `result[].log_index`) whose captured JSON type is not
 * service.md's, with the captured type. Operations absent here are the same in both flavours.
 *
 * `realTypes.getBlock` is `[["number", "string"]]`: A6's block number is a JSON number in
 * service.md and a string in captures.
 */
export const realTypes: Readonly<Partial<Record<OperationId, ReadonlyArray<readonly [path: string, type: RealType]>>>> = {
  getNFTTransfersByBlock: [["total", "number"], ...transferIndexes, spamFlag],
  getWalletNFTTransfers: [...transferIndexes, spamFlag, ["result[].verified_collection", "boolean"]],
  getNFTTransfers: [...transferIndexes, spamFlag],
  getNFTOwners: [spamFlag],
  getBlock: [["number", "string"]],
  getNFTOwnersByCollection: tokenProperties,
  getNFTCollections: [
    ["result[].description_mutable", "boolean"],
    ["result[].maximum_mutable", "boolean"],
    ["result[].uri_mutable", "boolean"]
  ],
  getNFTByOwners: tokenProperties,
  getNFTOwnersByTokens: tokenProperties
}

const integerText = /^-?\d+$/

const objectOf = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null ? value : text
  } catch {
    return text
  }
}

/** A value in the real flavour's type, or the value itself where it does not convert. */
const converted = (value: unknown, type: RealType): unknown => {
  switch (type) {
    case "number":
      return typeof value === "string" && integerText.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value
    case "boolean":
      return value === "true" ? true : value === "false" ? false : value
    case "string":
      return typeof value === "number" ? String(value) : value
    case "object":
      return typeof value === "string" ? objectOf(value) : value
  }
}

/** `result[].log_index` as steps: `["result", "[]", "log_index"]`. */
const stepsOf = (path: string): ReadonlyArray<string> => path.split(".").flatMap((part) => part.endsWith("[]") ? [part.slice(0, -2), "[]"].filter((step) => step !== "") : [part])

/** Converts, in place, the field at `steps` under `value` (every item where a step is `[]`). */
const convertAt = (value: unknown, steps: ReadonlyArray<string>, at: number, type: RealType): void => {
  const step = steps[at]
  if (step === undefined || typeof value !== "object" || value === null) return
  if (step === "[]") {
    if (Array.isArray(value)) for (const item of value) convertAt(item, steps, at + 1, type)
    return
  }
  const record = value as Record<string, unknown>
  if (!Object.hasOwn(record, step)) return
  if (at === steps.length - 1) record[step] = converted(record[step], type)
  else convertAt(record[step], steps, at + 1, type)
}

/**
 * The rewrite of an operation's 200 body into the real flavour, or `undefined` when the operation
 * has nothing to rewrite. A body that is not JSON is left as it is.
 *
 * `realWire("getBlock")!(Buffer.from('{"number":7}'))` is the bytes of `{"number":"7"}`.
 */
export const realWire = (operation: OperationId): ((body: Buffer) => Buffer) | undefined => {
  const fields = realTypes[operation]
  if (fields === undefined) return undefined
  const steps = fields.map(([path, type]) => [stepsOf(path), type] as const)
  return (body) => {
    let json: unknown
    try {
      json = JSON.parse(body.toString("utf8"))
    } catch {
      return body
    }
    for (const [path, type] of steps) convertAt(json, path, 0, type)
    return Buffer.from(JSON.stringify(json), "utf8")
  }
}
