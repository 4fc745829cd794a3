/**
 * @chainquery/watcher: a long-running CLI that polls wallets through chainquery and prints what
 * changed.
 *
 * This app is laid out but not filled yet; its CLI arrives with its own issue.
 *
 * @since 0.1.0
 */
