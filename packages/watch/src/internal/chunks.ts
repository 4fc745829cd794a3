/**
 * `items` in slices of `size`: for reads and writes that name many wallets, a request or a
 * statement a slice.
 *
 * @internal
 */
export const chunks = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
