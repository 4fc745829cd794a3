/**
 * How requests are authenticated: the `X-API-Key` header, or (as the newer SDK operations also
 * send it) `Authorization: Bearer <key>`. Declared once here as an HttpApi middleware so that the
 * server side (the simulator) and the clients agree.
 *
 * @since 0.1.0
 */
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { UnauthorizedBody } from "./ErrorBody.js"

/**
 * The header that carries the API key.
 *
 * @example
 * ```ts
 * import { ApiKey } from "@chainquery/schema"
 *
 * ApiKey.headerName // "X-API-Key"
 * ```
 * @since 0.1.0
 */
export const headerName = "X-API-Key"

/**
 * The API key security of both families: `apiKey` (the `X-API-Key` header) or `bearer`
 * (`Authorization: Bearer`). A request with neither, or a wrong key, gets 401 with
 * `{"message": ...}`.
 *
 * @example
 * ```ts
 * import { HttpApiGroup } from "effect/http-api"
 * import { ApiKey } from "@chainquery/schema"
 *
 * const group = HttpApiGroup.make("example").middleware(ApiKey.ApiKeyAuth)
 * ```
 * @since 0.1.0
 */
export class ApiKeyAuth extends HttpApiMiddleware.Service<ApiKeyAuth>()("@chainquery/schema/ApiKeyAuth", {
  requiredForClient: true,
  security: {
    apiKey: HttpApiSecurity.apiKey({ key: headerName, in: "header" }),
    bearer: HttpApiSecurity.bearer
  },
  error: UnauthorizedBody
}) {}
