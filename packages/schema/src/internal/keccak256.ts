/**
 * Keccak-256 as used by Ethereum: the original Keccak submission with padding byte 0x01,
 * which differs from NIST SHA3-256 (padding byte 0x06). Pure TypeScript, no dependencies,
 * so it runs in browsers as well as in Node.
 *
 * The 1600-bit state is 25 lanes of 64 bits. Each lane is kept as two 32-bit halves in a
 * `Uint32Array(50)`: lane `i = x + 5 * y` lives at `[2 * i]` (low half) and `[2 * i + 1]`
 * (high half). Bytes enter and leave the lanes little-endian.
 */

/** Sponge rate for a 256-bit output: 1600 - 2 * 256 bits = 136 bytes = 17 lanes. */
const RATE_BYTES = 136
const OUTPUT_BYTES = 32

/** The 24 iota round constants, as [high 32 bits, low 32 bits]. */
const ROUND_CONSTANTS: ReadonlyArray<readonly [hi: number, lo: number]> = [
  [0x00000000, 0x00000001],
  [0x00000000, 0x00008082],
  [0x80000000, 0x0000808a],
  [0x80000000, 0x80008000],
  [0x00000000, 0x0000808b],
  [0x00000000, 0x80000001],
  [0x80000000, 0x80008081],
  [0x80000000, 0x00008009],
  [0x00000000, 0x0000008a],
  [0x00000000, 0x00000088],
  [0x00000000, 0x80008009],
  [0x00000000, 0x8000000a],
  [0x00000000, 0x8000808b],
  [0x80000000, 0x0000008b],
  [0x80000000, 0x00008089],
  [0x80000000, 0x00008003],
  [0x80000000, 0x00008002],
  [0x80000000, 0x00000080],
  [0x00000000, 0x0000800a],
  [0x80000000, 0x8000000a],
  [0x80000000, 0x80008081],
  [0x80000000, 0x00008080],
  [0x00000000, 0x80000001],
  [0x80000000, 0x80008008]
]

/** Rho rotation offsets (bits, to the left), indexed by lane `x + 5 * y`. */
const RHO_OFFSETS: ReadonlyArray<number> = [
  0, 1, 62, 28, 27,
  36, 44, 6, 55, 20,
  3, 10, 43, 25, 39,
  41, 45, 15, 21, 8,
  18, 2, 61, 56, 14
]

/** Pi moves lane (x, y) to (y, 2x + 3y mod 5); this is that destination, indexed by `x + 5 * y`. */
const PI_TARGETS: ReadonlyArray<number> = Array.from({ length: 25 }, (_, i) => {
  const x = i % 5
  const y = Math.floor(i / 5)
  return y + 5 * ((2 * x + 3 * y) % 5)
})

// Scratch space for the permutation. Safe to share: the hash is synchronous and never re-entered.
const columns = new Uint32Array(10)
const moved = new Uint32Array(50)

/** Applies the 24 rounds of keccak-f[1600] to `state` in place. */
function keccakF1600(state: Uint32Array): void {
  for (const [rcHi, rcLo] of ROUND_CONSTANTS) {
    // Theta: XOR every lane with the parities of two neighbouring columns,
    // D[x] = C[x - 1] ^ rotl(C[x + 1], 1).
    for (let x = 0; x < 5; x++) {
      for (let half = 0; half < 2; half++) {
        const k = 2 * x + half
        columns[k] = state[k]! ^ state[k + 10]! ^ state[k + 20]! ^ state[k + 30]! ^ state[k + 40]!
      }
    }
    for (let x = 0; x < 5; x++) {
      const left = 2 * ((x + 4) % 5)
      const right = 2 * ((x + 1) % 5)
      const rightLo = columns[right]!
      const rightHi = columns[right + 1]!
      const dLo = columns[left]! ^ ((rightLo << 1) | (rightHi >>> 31))
      const dHi = columns[left + 1]! ^ ((rightHi << 1) | (rightLo >>> 31))
      for (let lane = x; lane < 25; lane += 5) {
        state[2 * lane] = state[2 * lane]! ^ dLo
        state[2 * lane + 1] = state[2 * lane + 1]! ^ dHi
      }
    }

    // Rho and pi: rotate each lane by its own offset and move it to its new position.
    for (let lane = 0; lane < 25; lane++) {
      let lo = state[2 * lane]!
      let hi = state[2 * lane + 1]!
      let r = RHO_OFFSETS[lane]!
      if (r >= 32) {
        // Rotating by 32 swaps the halves; what remains is a rotation by r - 32.
        const t = lo
        lo = hi
        hi = t
        r -= 32
      }
      const target = 2 * PI_TARGETS[lane]!
      if (r === 0) {
        moved[target] = lo
        moved[target + 1] = hi
      } else {
        moved[target] = (lo << r) | (hi >>> (32 - r))
        moved[target + 1] = (hi << r) | (lo >>> (32 - r))
      }
    }

    // Chi: the only non-linear step, row by row: a[x] ^= ~a[x + 1] & a[x + 2].
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        const k = 2 * (y + x)
        const k1 = 2 * (y + ((x + 1) % 5))
        const k2 = 2 * (y + ((x + 2) % 5))
        state[k] = moved[k]! ^ (~moved[k1]! & moved[k2]!)
        state[k + 1] = moved[k + 1]! ^ (~moved[k1 + 1]! & moved[k2 + 1]!)
      }
    }

    // Iota: break the symmetry between rounds by XORing a constant into lane (0, 0).
    state[0] = state[0]! ^ rcLo
    state[1] = state[1]! ^ rcHi
  }
}

/** XORs one 136-byte block, read little-endian from `view` at `offset`, into the first 17 lanes. */
function absorbBlock(state: Uint32Array, view: DataView, offset: number): void {
  for (let word = 0; word < RATE_BYTES / 4; word++) {
    state[word] = state[word]! ^ view.getUint32(offset + 4 * word, true)
  }
}

/**
 * Keccak-256 of a byte string (Ethereum's hash, not NIST SHA3-256).
 *
 * @example
 * keccak256(new Uint8Array()) // 32 bytes: c5d24601…5d85a470
 */
export function keccak256(input: Uint8Array): Uint8Array {
  const state = new Uint32Array(50)

  // Absorb every full block straight from the input.
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength)
  let offset = 0
  for (; offset + RATE_BYTES <= input.length; offset += RATE_BYTES) {
    absorbBlock(state, view, offset)
    keccakF1600(state)
  }

  // The final block holds the 0..135 remaining bytes and the pad10*1 padding with Keccak's
  // domain byte 0x01. When only one byte is free both bits land in it, giving 0x81.
  const last = new Uint8Array(RATE_BYTES)
  last.set(input.subarray(offset))
  const remaining = input.length - offset
  last[remaining] = 0x01
  last[RATE_BYTES - 1] = last[RATE_BYTES - 1]! | 0x80
  absorbBlock(state, new DataView(last.buffer), 0)
  keccakF1600(state)

  // Squeeze: 32 bytes fit within one rate, so the first four lanes are the digest.
  const output = new Uint8Array(OUTPUT_BYTES)
  const out = new DataView(output.buffer)
  for (let word = 0; word < OUTPUT_BYTES / 4; word++) {
    out.setUint32(4 * word, state[word]!, true)
  }
  return output
}

/**
 * Keccak-256 of the UTF-8 encoding of `text`, as 64 lowercase hex characters without `0x`.
 *
 * @example
 * keccak256Hex("abc") // "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
 */
export function keccak256Hex(text: string): string {
  let hex = ""
  for (const byte of keccak256(new TextEncoder().encode(text))) {
    hex += byte.toString(16).padStart(2, "0")
  }
  return hex
}
