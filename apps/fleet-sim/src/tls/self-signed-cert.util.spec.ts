import { X509Certificate, createPrivateKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSelfSignedCert } from './self-signed-cert.util';

describe(generateSelfSignedCert.name, () => {
  it('produces a self-signed certificate Node parses and verifies, for 127.0.0.1', () => {
    const { key, cert } = generateSelfSignedCert('fleet-sim');
    const x509 = new X509Certificate(cert);
    expect(x509.subject).toBe('CN=fleet-sim');
    expect(x509.issuer).toBe('CN=fleet-sim');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(key))).toBe(true);
    expect(new Date(x509.validTo).getTime()).toBeGreaterThan(Date.now() + 365 * 24 * 3600 * 1000);
  });
});
