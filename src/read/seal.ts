import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The snapshot holds the directory (e-mails, attributes): where the API key is not (a fork's pull request
 * reading the base branch's CI cache), it must be noise. It is sealed with AES-256-GCM under a key derived
 * from the API key (HKDF-SHA256, fixed salt and info: the same key always gives the same snapshot key, so
 * the next run with the same API key opens it). Layout: one version byte, a 12-byte random IV, the
 * ciphertext of the gzipped JSON, the 16-byte tag. The version byte is authenticated too (additional data).
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

export function sealJson(key: Buffer, value: unknown): Buffer {
  const iv = randomBytes(IV_BYTES);
  const version = Buffer.from([SEAL_VERSION]);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(version);
  const body = Buffer.concat([cipher.update(gzipSync(Buffer.from(JSON.stringify(value), 'utf8'))), cipher.final()]);
  return Buffer.concat([version, iv, body, cipher.getAuthTag()]);
}

/** Why a sealed file cannot be opened, in words for the plan's header. */
export type Unsealed = { ok: true; value: unknown } | { ok: false; reason: string };

export function openSealedJson(key: Buffer, sealed: Buffer): Unsealed {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES) return { ok: false, reason: 'the snapshot file is truncated' };
  if (sealed[0] !== SEAL_VERSION)
    return { ok: false, reason: `the snapshot has format version ${sealed[0]}, this Roster reads ${SEAL_VERSION}` };
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(sealed.subarray(0, 1));
  decipher.setAuthTag(tag);
  let plain: Buffer;
  try {
    plain = Buffer.concat([
      decipher.update(sealed.subarray(1 + IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    return { ok: false, reason: 'the snapshot cannot be decrypted with this API key (another key, or a damaged file)' };
  }
  try {
    return { ok: true, value: JSON.parse(gunzipSync(plain).toString('utf8')) as unknown };
  } catch {
    return { ok: false, reason: 'the snapshot decrypts but does not hold JSON' };
  }
}
