/**
 * What A5 tells about a token besides its holder: the metadata its contract serves (raw JSON
 * text), the service's normalised form of it (`normalizeMetadata=true`) and its media items
 * (`media_items=true`), in the shapes the real captures show. Every value follows from the
 * token, so the three agree with each other and with the other records of the world.
 *
 * @internal
 */
import { DateTime } from "effect"
import { Random } from "../Random.js"

/** The token whose metadata is described. */
export interface Token {
  readonly chainId: string
  readonly contract: string
  readonly tokenId: bigint
  /** The collection's name (`Unknown` when the world has none). */
  readonly collectionName: string
  /** When the service last read the token's metadata. */
  readonly synced: DateTime.Utc
}

const backgrounds = ["Azure", "Coral", "Ivory", "Jade", "Onyx"] as const
const maxLevel = 10

/** The token's traits: a background, and a level from 1 to 10. */
const traitsOf = (tokenId: bigint) => ({
  background: backgrounds[Number(tokenId % BigInt(backgrounds.length))]!,
  level: Number(tokenId % BigInt(maxLevel)) + 1
})

/** How many of `tokenIds` share each trait value: read by `normalizedMetadata`'s `trait_count`. */
export const traitCounts = (tokenIds: ReadonlyArray<bigint>): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)
  for (const tokenId of tokenIds) {
    const { background, level } = traitsOf(tokenId)
    add(`Background:${background}`)
    add(`Level:${level}`)
  }
  return counts
}

const urlOf = (token: Token, file: string) => `https://nft.example.invalid/${token.contract}/${token.tokenId}${file}`

/** The metadata the token's URI serves (ERC721 metadata JSON), as the service passes it on. */
export const rawMetadata = (token: Token) => {
  const name = `${token.collectionName} #${token.tokenId}`
  const { background, level } = traitsOf(token.tokenId)
  return {
    name,
    description: `${name}, a simulated token`,
    image: urlOf(token, ".png"),
    external_url: urlOf(token, ""),
    animation_url: urlOf(token, ".mp4"),
    attributes: [
      { trait_type: "Background", value: background },
      { trait_type: "Level", value: level, display_type: "number", max_value: maxLevel }
    ]
  }
}

/** The service's normalised metadata: fixed field names, traits with their counts in `counts`. */
export const normalizedMetadata = (token: Token, counts: ReadonlyMap<string, number>) => {
  const raw = rawMetadata(token)
  return {
    name: raw.name,
    description: raw.description,
    image: raw.image,
    external_link: raw.external_url,
    animation_url: raw.animation_url,
    attributes: raw.attributes.map((attribute, index) => ({
      trait_type: attribute.trait_type,
      value: attribute.value,
      display_type: "display_type" in attribute ? attribute.display_type : "string",
      max_value: "max_value" in attribute ? attribute.max_value : null,
      trait_count: counts.get(`${attribute.trait_type}:${attribute.value}`) ?? 0,
      order: index + 1
    }))
  }
}

const previews = [["low", 100], ["medium", 250], ["high", 500]] as const

/** The media item of the token's image, with its preview sizes. */
export const mediaOf = (token: Token) => {
  const parentHash = `0x${new Random(`media:${token.chainId}:${token.contract}:${token.tokenId}`).hex(32)}`
  const preview = `https://nft-preview-media.example.invalid/evm/${token.chainId}/${token.contract}/${parentHash}`
  return {
    status: "success",
    original_media_url: urlOf(token, ".png"),
    updatedAt: DateTime.formatIso(token.synced),
    category: "image",
    mimetype: "image/png",
    parent_hash: parentHash,
    media_collection: Object.fromEntries(
      previews.map(([size, pixels]) => [size, { height: pixels, width: pixels, url: `${preview}/${size}.png` }])
    )
  }
}
