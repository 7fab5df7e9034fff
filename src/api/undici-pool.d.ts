// The two parts of undici the client uses (src/api/client.ts), by their own paths: undici's index also
// loads fetch, websockets, caches and mocks, about 170 ms of every command's start-up on these machines,
// and mixes the request API into every dispatcher's prototype. These are undici's files, not its
// documented entry point: test/api exercises both on every run, so that an upgrade moving them fails there.
declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** `dispatcher.request(options)`, called with the dispatcher as `this`. */
  export default function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}
