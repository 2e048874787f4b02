/**
 * Every subscription of publisher-identity, in one place. It consumes no events: it owns accounts,
 * sessions and publisher platforms, and publishes publisher.* events through its outbox relay.
 */
export const SUBSCRIPTIONS: readonly string[] = [];
