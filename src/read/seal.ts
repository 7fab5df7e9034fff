import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The snapshot holds the directory (e-mails, attributes): where the API key is not (a fork's pull request
 * reading the base branch's CI cache), it must be noise. It is sealed with AES-256-GCM under a key derived
 * from the API key (HKDF-SHA256, fixed salt and info: the same key always gives the same snapshot key, so
 * the next run with the same API key opens it). Layout: one version byte, a 12-byte random IV, the
 * ciphertext, the 16-byte tag. The version byte is authenticated too (additional data).
 *
 * Inside, either one gzipped JSON value (`sealJson`), or frames (`sealJsonFrames`): values one after the
 * other, each gzipped on its own behind its length (4 bytes, big-endian). Frames are made and opened one at
 * a time: the snapshot's lists, the JSON of a whole environment, never exist as one string.
 */
export const SEAL_VERSION = 1;
const SALT = 'roster/snapshot/salt/v1';
const INFO = 'roster live-state snapshot, AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The snapshot key of an API key: 32 bytes, never written anywhere. */
export function deriveSnapshotKey(apiKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(apiKey, 'utf8'), SALT, INFO, 32));
}

function seal(key: Buffer, plain: Buffer[]): Buffer {
  const iv = randomBytes(IV_BYTES);
  const version = Buffer.from([SEAL_VERSION]);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(version);
  const body = plain.map((p) => cipher.update(p));
  return Buffer.concat([version, iv, ...body, cipher.final(), cipher.getAuthTag()]);
}

/** Why a sealed file cannot be opened, in words for the plan's header. */
export type Unsealed = { ok: true; value: unknown } | { ok: false; reason: string };

function open(key: Buffer, sealed: Buffer): { ok: true; plain: Buffer } | { ok: false; reason: string } {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES) return { ok: false, reason: 'the snapshot file is truncated' };
  if (sealed[0] !== SEAL_VERSION)
    return { ok: false, reason: `the snapshot has format version ${sealed[0]}, this Roster reads ${SEAL_VERSION}` };
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(tag);
  try {
    const plain = Buffer.concat([
      decipher.update(sealed.subarray(1 + IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return { ok: true, plain };
  } catch {
    return { ok: false, reason: 'the snapshot cannot be decrypted with this API key (another key, or a damaged file)' };
  }
}

const NOT_JSON = { ok: false, reason: 'the snapshot decrypts but does not hold JSON' } as const;

const parseGzipped = (zipped: Buffer): unknown => JSON.parse(gunzipSync(zipped).toString('utf8'));

export function sealJson(key: Buffer, value: unknown): Buffer {
  return seal(key, [gzipSync(Buffer.from(JSON.stringify(value), 'utf8'))]);
}

export function openSealedJson(key: Buffer, sealed: Buffer): Unsealed {
  const opened = open(key, sealed);
  if (!opened.ok) return opened;
  try {
    return { ok: true, value: parseGzipped(opened.plain) };
  } catch {
    return NOT_JSON;
  }
}

/** Seals `values` as frames: each one's JSON is made, gzipped and let go before the next. */
export function sealJsonFrames(key: Buffer, values: Iterable<unknown>): Buffer {
  const frames: Buffer[] = [];
  for (const value of values) {
    const zipped = gzipSync(Buffer.from(JSON.stringify(value), 'utf8'));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(zipped.length);
    frames.push(length, zipped);
  }
  return seal(key, frames);
}

/** The values of `sealJsonFrames`, opened one frame at a time. */
export function openSealedJsonFrames(
  key: Buffer,
  sealed: Buffer,
): { ok: true; values: unknown[] } | { ok: false; reason: string } {
  const opened = open(key, sealed);
  if (!opened.ok) return opened;
  const { plain } = opened;
  const values: unknown[] = [];
  try {
    for (let at = 0; at < plain.length;) {
      const length = plain.readUInt32BE(at);
      values.push(parseGzipped(plain.subarray(at + 4, at + 4 + length)));
      at += 4 + length;
    }
  } catch {
    return NOT_JSON;
  }
  return { ok: true, values };
}
