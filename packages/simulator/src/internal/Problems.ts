/**
 * What a simulated operation can refuse, as plain errors the HTTP layer turns into the service's
 * status codes and bodies.
 *
 * @internal
 */

/** A request the service rejects with 400 and this message. */
export class BadRequestProblem extends Error {}

/** A resource the service does not have: 404 with this message. */
export class NotFoundProblem extends Error {}
