import { ConfigError } from '../errors.js';

/**
 * The service's base URL as the user gave it (`--api-url` or ROSTER_API_URL), checked before any request
 * (pure). Every request path starts with `/v2/`, so a URL that already ends in `/v2` (as the public
 * service's API reference writes it) is accepted and the `/v2` dropped, rather than requesting
 * `/v2/v2/...` and meeting a 404 that names neither. A URL without a scheme (`127.0.0.1:7801`) is
 * refused with the fix: it would otherwise fail deep inside the HTTP client.
 */
export function parseApiUrl(raw: string, source: string): string {
  const value = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  let url: URL | undefined;
  try {
    url = withScheme ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!withScheme) {
    throw new ConfigError(`${source} '${value}' has no scheme: write http://${value} (or https://${value})`);
  }
  if (!url) throw new ConfigError(`${source} '${value}' is not a URL: write it as http://HOST:PORT or https://HOST`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${source} '${value}' must be an http:// or https:// URL, not ${url.protocol}//`);
  }
  if (url.search || url.hash)
    throw new ConfigError(
      `${source} '${value}' must not have a query or fragment: give the service's base URL, e.g. ${url.origin}`,
    );
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v2$/, '');
  return url.href.replace(/\/+$/, '');
}
