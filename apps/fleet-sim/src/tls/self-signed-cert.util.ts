/**
 * A throw-away self-signed TLS certificate for the simulator's HTTPS side, generated in memory
 * at start (ECDSA P-256, SHA-256, SAN `IP:127.0.0.1` and `DNS:localhost`).
 *
 * Why HTTPS at all: kubectl (client-go `clientcmd`) only sends a kubeconfig user's credentials
 * (the bearer token) when the server URL is https; over plain http it drops them. The
 * kubeconfig therefore points at `https://127.0.0.1:P/k8s/<id>` with
 * `insecure-skip-tls-verify: true`. Node has no X.509 builder, so the certificate is assembled
 * here in DER (RFC 5280) from Node's key pair and signature primitives.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** PEM key and certificate. */
export interface SelfSignedCert {
  key: string;
  cert: string;
}

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, content: Buffer): Buffer =>
  Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));

function derInteger(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && ((b[1] as number) & 0x80) === 0) b = b.subarray(1);
  return tlv(0x02, ((b[0] as number) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

function derOid(oid: string): Buffer {
  const parts = oid.split('.').map(Number);
  const out: number[] = [40 * (parts[0] as number) + (parts[1] as number)];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = p >> 7; v > 0; v >>= 7) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function derUtcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_ALT_NAME = '2.5.29.17';

/**
 * Generate a self-signed certificate valid from one day ago for `days` days (default 825,
 * UTCTime keeps dates before 2050).
 */
export function generateSelfSignedCert(commonName = 'fleet-sim', days = 825): SelfSignedCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const algorithm = seq(derOid(ECDSA_WITH_SHA256));
  const name = seq(set(seq(derOid(COMMON_NAME), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f;
  const notBefore = new Date(Date.now() - 24 * 3600 * 1000);
  const notAfter = new Date(notBefore.getTime() + days * 24 * 3600 * 1000);
  const san = seq(tlv(0x87, Buffer.from([127, 0, 0, 1])), tlv(0x82, Buffer.from('localhost', 'ascii')));
  const extensions = tlv(0xa3, seq(seq(derOid(SUBJECT_ALT_NAME), tlv(0x04, san))));
  const tbs = seq(
    tlv(0xa0, derInteger(Buffer.from([2]))),
    derInteger(serial),
    algorithm,
    name,
    seq(derUtcTime(notBefore), derUtcTime(notAfter)),
    name,
    spki,
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`,
  };
}
