/**
 * @chainquery/ledger-client: LedgerClient: the seven family B (Aptos) operations of the chainquery service as a typed Effect service.
 *
 * This package is laid out but not filled yet; its API arrives with its own issue.
 *
 * @since 0.1.0
 */
