/**
 * Secrets compared without telling anything by the time it takes: both sides' SHA-256 digests
 * compared in constant time, so that not even a length shows. What the API token's check and the
 * console's CSRF check share.
 *
 * @internal
 */
import { createHash, timingSafeEqual } from "node:crypto"

/** The SHA-256 of `text` (UTF-8). */
export const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

/** Whether `given` is `expected`, in time that depends on neither. */
export const sameSecret = (given: string, expected: string): boolean => timingSafeEqual(sha256(given), sha256(expected))
