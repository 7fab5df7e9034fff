// Preloaded into a CLI child (`--import`, through NODE_OPTIONS: test/helpers/no-jitter.ts): its client's
// jitter source is Math.random (src/api/client.ts), the only use of randomness in the CLI, so its retries
// do not wait (backoff = random() · ceiling = 0). For tests whose retries are not what they test.
Math.random = () => 0;
