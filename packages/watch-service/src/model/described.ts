/**
 * A Schema with a description: what the OpenAPI document (and any JSON Schema made of it) says
 * of the field it types.
 *
 * @internal
 */
import type { Schema } from "effect"

/** `schema` with `description`. */
export const described = <S extends Schema.Top>(schema: S, description: string): S["Rebuild"] => schema.annotate({ description })
