/** The API's values as the console reads them: the types of the management API's own schemas. */
import type { DeliveryDetail, DeliveryView, StatsView, StreamView } from "@chainquery/watch-service/ManagementApi"

/** A stream (`GET /v1/streams/{id}`). */
export type Stream = typeof StreamView.Type

/** A stream's statistics (`GET /v1/streams/{id}/stats`). */
export type Stats = typeof StatsView.Type

/** A delivery (`GET /v1/streams/{id}/deliveries`). */
export type Delivery = typeof DeliveryView.Type

/** A delivery with its attempts and body (`GET /v1/streams/{id}/deliveries/{deliveryId}`). */
export type Detail = DeliveryDetail
