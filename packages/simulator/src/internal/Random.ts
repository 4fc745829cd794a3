/**
 * Deterministic randomness for the simulated world: a small, fast PRNG (sfc32) seeded from a
 * string, with independent streams per purpose (`fork("eth", "blocks")`), so that adding draws in
 * one place never changes what another place sees.
 *
 * @internal
 */

/** Hashes a string to four 32-bit words (cyrb128-style mixing). */
const hashSeed = (text: string): [number, number, number, number] => {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i)
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067)
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233)
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213)
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179)
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067)
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233)
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213)
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179)
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0]
}

/** A seeded stream of random values. */
export class Random {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(readonly seed: string) {
    ;[this.a, this.b, this.c, this.d] = hashSeed(seed)
    for (let i = 0; i < 12; i++) this.next()
  }

  /** An independent stream for a purpose, derived from this stream's seed. */
  fork(...labels: ReadonlyArray<string | number>): Random {
    return new Random(`${this.seed}/${labels.join("/")}`)
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return (t >>> 0) / 4294967296
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1)
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p
  }

  /** One element of a non-empty list. */
  pick<A>(items: ReadonlyArray<A>): A {
    return items[this.int(items.length)]!
  }

  /** `bytes` random bytes as lower-case hex, without `0x` (one flat string, built natively). */
  hex(bytes: number): string {
    const buffer = Buffer.allocUnsafe(Math.ceil(bytes / 4) * 4)
    for (let i = 0; i < buffer.length; i += 4) buffer.writeUInt32LE(Math.floor(this.next() * 4294967296), i)
    return buffer.toString("hex", 0, bytes)
  }
}
