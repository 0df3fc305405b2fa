import { ClientError, ServerError, ThrottlingError } from '@alicloud/openapi-core';
import { describe, expect, it } from 'vitest';
import { alibabaError, CollectError, kubernetesError, redact } from './collect-error.util';

describe('alibabaError', () => {
  it('keeps the API code of a ThrottlingError, marks it retryable and keeps retryAfter', () => {
    const e = alibabaError(
      new ThrottlingError({
        code: 'Throttling.User',
        statusCode: 400,
        requestId: 'R-1',
        retryAfter: 1500,
        data: { Message: 'Request was denied due to user flow control.' },
      }),
      'DescribeInstances',
      '1/cn-hangzhou',
    );
    expect(e).toMatchObject({
      errorCode: 'Throttling.User',
      retryable: true,
      notFound: false,
      retryAfterMs: 1500,
    });
    expect(e.message).toBe(
      'DescribeInstances 1/cn-hangzhou: Throttling.User (HTTP 400): Request was denied due to user flow control. [RequestId R-1]',
    );
  });

  it('maps a 404 ClientError to notFound, not retryable', () => {
    const e = alibabaError(
      new ClientError({ code: 'InvalidLoadBalancerId.NotFound', statusCode: 404, data: { Message: 'gone' } }),
      'DescribeLoadBalancerAttribute',
      'lb-1',
    );
    expect(e).toMatchObject({
      errorCode: 'InvalidLoadBalancerId.NotFound',
      retryable: false,
      notFound: true,
    });
  });

  it('treats SLB InvalidParameter "does not exist" and RAM EntityNotExist as notFound', () => {
    const gone = new ClientError({
      code: 'InvalidParameter',
      statusCode: 400,
      data: { Message: 'The specified VServerGroupId does not exist.' },
    });
    expect(alibabaError(gone, 'DescribeVServerGroupAttribute', 'rsp-1').notFound).toBe(true);
    const bad = new ClientError({
      code: 'InvalidParameter',
      statusCode: 400,
      data: { Message: 'The specified parameter "PageSize" is not valid.' },
    });
    expect(alibabaError(bad, 'DescribeLoadBalancers', 't').notFound).toBe(false);
    expect(
      alibabaError(
        new ClientError({ code: 'EntityNotExist.Role', statusCode: 404 }),
        'ListPoliciesForRole',
        'r',
      ).notFound,
    ).toBe(true);
  });

  it('marks 5xx ServerErrors retryable', () => {
    expect(
      alibabaError(new ServerError({ code: 'ServiceUnavailable', statusCode: 503 }), 'X', 't').retryable,
    ).toBe(true);
  });

  it('maps a credentials rejection to its code and redacts the AccessKey from the message', () => {
    const e = alibabaError(
      new ClientError({
        code: 'InvalidAccessKeyId.NotFound',
        statusCode: 404,
        data: { Message: 'Specified access key is not found: LTAIexample123' },
      }),
      'ListRoles',
      '1',
      ['LTAIexample123', 'secret-value'],
    );
    expect(e.errorCode).toBe('InvalidAccessKeyId.NotFound');
    expect(e.notFound).toBe(false);
    expect(e.message).not.toContain('LTAIexample123');
    expect(e.message).toContain('***');
  });

  it('maps network errors (also nested as cause) to their errno code', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(alibabaError(refused, 'DescribeInstances', 't')).toMatchObject({
      errorCode: 'ECONNREFUSED',
      retryable: false,
    });
    const reset = Object.assign(new Error('wrapped'), {
      cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    });
    expect(alibabaError(reset, 'DescribeInstances', 't')).toMatchObject({
      errorCode: 'ECONNRESET',
      retryable: true,
    });
  });

  it('names an exhausted default credentials chain', () => {
    const e = alibabaError(
      new Error('unable to get credentials from any of the providers in the chain: env: not set'),
      'ListRoles',
      '1',
    );
    expect(e.errorCode).toBe('CredentialsUnavailable');
    expect(e.retryable).toBe(false);
  });

  it('passes a CollectError through unchanged', () => {
    const c = new CollectError('InvalidResponse', 'x');
    expect(alibabaError(c, 'A', 't')).toBe(c);
  });
});

describe('kubernetesError', () => {
  it('uses the Status reason of an ApiException-like error', () => {
    const e = kubernetesError(
      {
        name: 'ApiException',
        code: 403,
        body: JSON.stringify({ kind: 'Status', reason: 'Forbidden', message: 'nodes is forbidden' }),
      },
      'list nodes',
      'c1',
    );
    expect(e).toMatchObject({ errorCode: 'Forbidden', retryable: false, notFound: false });
    expect(e.message).toBe('list nodes c1: Forbidden (HTTP 403): nodes is forbidden');
  });

  it('retries 429 and 5xx, flags 404', () => {
    expect(kubernetesError({ code: 429, body: '' }, 'a', 't').retryable).toBe(true);
    expect(kubernetesError({ code: 503, body: '' }, 'a', 't').retryable).toBe(true);
    expect(kubernetesError({ code: 404, body: '' }, 'a', 't').notFound).toBe(true);
  });

  it('maps a DOMException TimeoutError (legacy code 23) to a retryable Timeout, not HTTP23', () => {
    const e = kubernetesError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'pods', 'c1');
    expect(e.errorCode).toBe('Timeout');
    expect(e.retryable).toBe(true);
  });

  it('names an unreachable API server', () => {
    const e = kubernetesError(
      Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      }),
      'list nodes',
      'c1',
    );
    expect(e.errorCode).toBe('ECONNREFUSED');
    expect(e.message).toContain('unreachable');
  });
});

describe('redact', () => {
  it('replaces every occurrence and ignores very short values', () => {
    expect(redact('a KEY b KEY', ['KEY1', 'KEY', 'ab'])).toBe('a KEY b KEY');
    expect(redact('a KEYX b KEYX', ['KEYX'])).toBe('a *** b ***');
  });
});
