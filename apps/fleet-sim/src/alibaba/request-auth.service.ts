/**
 * Verifies the signature of a simulated Alibaba Cloud API request and resolves the caller.
 *
 * Accepted forms (`research/alibaba-cloud-api.md` 1.3, 1.4; openapi-core 1.0.8):
 * - V3 `authorization: ACS3-HMAC-SHA256 Credential=AK,SignedHeaders=...,Signature=hex`
 *   (every product SDK by default, RPC and ROA);
 * - V1 RPC: `AccessKeyId`, `Signature`, `SignatureMethod=HMAC-SHA1` in the query (and form);
 * - V1 ROA: `authorization: acs AK:base64sig`.
 *
 * Errors (POP gateway codes): no signature -> 400 `IncompleteSignature`; unknown key -> 404
 * `InvalidAccessKeyId.NotFound`; wrong signature -> 400 `SignatureDoesNotMatch`; a clock more
 * than 15 minutes off -> 400 `InvalidTimeStamp.Expired`; STS token problems -> 400
 * `MissingSecurityToken` / `InvalidSecurityToken.MismatchWithAccessKey` / `InvalidSecurityToken.Expired`.
 * Messages never echo secrets or the server-side string to sign.
 */
import { AcsError } from './acs-error.exception';
import type { CredentialStore, SimCredential } from './credential.store';
import {
  roaV1Signature,
  roaV1StringToSign,
  rpcV1Signature,
  safeEqual,
  sha256Hex,
  v3CanonicalRequest,
  v3Signature,
} from './signature.util';

/** The parts of a request that signatures cover. */
export interface SignedRequestParts {
  method: string;
  /** Path as sent (percent-encoded). */
  rawPath: string;
  /** Decoded query parameters. */
  query: Readonly<Record<string, string>>;
  /** Decoded urlencoded-form parameters (empty when the body is not a form). */
  form: Readonly<Record<string, string>>;
  /** Request headers, lowercase names, repeated headers joined with `,`. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

/** Which algorithm signed a request. */
export type SignatureKind = 'v3' | 'rpc-v1' | 'roa-v1';

/** The authenticated caller. */
export interface AcsCaller {
  credential: SimCredential;
  signature: SignatureKind;
}

/** Largest accepted clock difference between the caller's timestamp and ours, milliseconds. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

const incomplete = (detail: string) =>
  new AcsError(
    400,
    'IncompleteSignature',
    `The request signature does not conform to Aliyun standards. ${detail}`,
  );
const mismatch = () =>
  new AcsError(400, 'SignatureDoesNotMatch', 'Specified signature is not matched with our calculation.');

/** Verifies request signatures against a {@link CredentialStore}. */
export class RequestAuthService {
  /**
   * @param credentials accepted AccessKeys
   * @param now clock (injected for tests)
   */
  constructor(
    private readonly credentials: CredentialStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Verify a request and return its caller.
   * @throws AcsError with the gateway's code when the request is unsigned, the key unknown or
   *   expired, the signature wrong or the timestamp too far off
   */
  verify(req: SignedRequestParts): AcsCaller {
    const auth = req.headers['authorization'] ?? '';
    if (auth.startsWith('ACS3-')) return this.verifyV3(req, auth);
    if (auth.startsWith('acs ')) return this.verifyRoaV1(req, auth);
    if (
      req.query['Signature'] !== undefined ||
      req.query['AccessKeyId'] !== undefined ||
      req.form['Signature'] !== undefined
    )
      return this.verifyRpcV1(req);
    throw incomplete('No signature was sent (authorization header or Signature parameter).');
  }

  private lookup(accessKeyId: string): SimCredential {
    const credential = this.credentials.get(accessKeyId);
    if (!credential)
      throw new AcsError(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.');
    if (credential.expiresAt && credential.expiresAt.getTime() <= this.now().getTime())
      throw new AcsError(400, 'InvalidSecurityToken.Expired', 'Specified SecurityToken is expired.');
    return credential;
  }

  private checkToken(credential: SimCredential, sent: string | undefined): void {
    if (credential.securityToken === undefined) return;
    if (sent === undefined || sent === '')
      throw new AcsError(400, 'MissingSecurityToken', 'SecurityToken is mandatory for this AccessKey.');
    if (!safeEqual(sent, credential.securityToken))
      throw new AcsError(
        400,
        'InvalidSecurityToken.MismatchWithAccessKey',
        'Specified SecurityToken mismatch with the AccessKey.',
      );
  }

  private checkClock(stamp: string | undefined, what: string): void {
    if (stamp === undefined || stamp === '') throw incomplete(`${what} is missing.`);
    const t = Date.parse(stamp);
    if (Number.isNaN(t))
      throw new AcsError(400, 'InvalidTimeStamp.Format', `Specified ${what} is not valid.`);
    if (Math.abs(this.now().getTime() - t) > MAX_CLOCK_SKEW_MS)
      throw new AcsError(400, 'InvalidTimeStamp.Expired', `Specified time stamp or date value is expired.`);
  }

  private verifyV3(req: SignedRequestParts, auth: string): AcsCaller {
    const space = auth.indexOf(' ');
    const algorithm = auth.slice(0, space < 0 ? undefined : space);
    if (algorithm !== 'ACS3-HMAC-SHA256') throw incomplete(`Unsupported signature algorithm ${algorithm}.`);
    const fields = new Map<string, string>();
    for (const part of auth.slice(space + 1).split(',')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const accessKeyId = fields.get('Credential');
    const signedHeaders = fields.get('SignedHeaders');
    const signature = fields.get('Signature');
    if (!accessKeyId || signedHeaders === undefined || !signature)
      throw incomplete('Credential, SignedHeaders and Signature are required.');
    const names = signedHeaders
      .split(';')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== '');
    for (const name of Object.keys(req.headers))
      if ((name.startsWith('x-acs-') || name === 'host' || name === 'content-type') && !names.includes(name))
        throw incomplete(`Header ${name} must be signed.`);
    const credential = this.lookup(accessKeyId);
    this.checkClock(req.headers['x-acs-date'], 'x-acs-date');
    const canonical = v3CanonicalRequest({
      method: req.method,
      pathname: req.rawPath,
      query: req.query,
      headers: req.headers,
      signedHeaders: names,
      payloadHash: sha256Hex(req.body),
    });
    if (!safeEqual(v3Signature(canonical, credential.accessKeySecret), signature)) throw mismatch();
    this.checkToken(credential, req.headers['x-acs-security-token']);
    return { credential, signature: 'v3' };
  }

  private verifyRpcV1(req: SignedRequestParts): AcsCaller {
    const params: Record<string, string> = { ...req.query, ...req.form };
    const signature = params['Signature'];
    const accessKeyId = params['AccessKeyId'];
    if (!signature || !accessKeyId) throw incomplete('AccessKeyId and Signature are required.');
    if ((params['SignatureMethod'] ?? 'HMAC-SHA1') !== 'HMAC-SHA1')
      throw incomplete(`Unsupported SignatureMethod ${params['SignatureMethod']}.`);
    const credential = this.lookup(accessKeyId);
    this.checkClock(params['Timestamp'], 'Timestamp');
    delete params['Signature'];
    if (!safeEqual(rpcV1Signature(req.method, params, credential.accessKeySecret), signature))
      throw mismatch();
    this.checkToken(credential, params['SecurityToken']);
    return { credential, signature: 'rpc-v1' };
  }

  private verifyRoaV1(req: SignedRequestParts, auth: string): AcsCaller {
    const value = auth.slice(4).trim();
    const colon = value.lastIndexOf(':');
    if (colon <= 0) throw incomplete('Expected "acs <AccessKeyId>:<Signature>".');
    const accessKeyId = value.slice(0, colon);
    const signature = value.slice(colon + 1);
    const credential = this.lookup(accessKeyId);
    this.checkClock(req.headers['date'], 'Date');
    const stringToSign = roaV1StringToSign(req.method, req.rawPath, req.query, req.headers);
    if (!safeEqual(roaV1Signature(stringToSign, credential.accessKeySecret), signature)) throw mismatch();
    this.checkToken(credential, req.headers['x-acs-security-token']);
    return { credential, signature: 'roa-v1' };
  }
}
