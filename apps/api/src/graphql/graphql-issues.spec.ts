/**
 * How a validation problem's path reads in a GraphQL answer (`graphqlIssue`, `withArgumentPaths`): REST names the
 * body `body.` and query parameters `query.`; the resolvers validate their arguments as `args.`; GraphQL names the
 * operation's arguments.
 */
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '@app/forecast';
import { ApiError } from '../common/api.exception';
import { graphqlIssue, toGraphqlError, withArgumentPaths } from './graphql.options';

describe('GraphQL validation issues', () => {
  it('names the input argument for a REST body, the argument itself for a query parameter or a resolver argument', () => {
    expect(graphqlIssue({ path: 'body.steps.0.addNodes.count', message: 'm' })).toEqual({ path: 'input.steps.0.addNodes.count', message: 'm' });
    expect(graphqlIssue({ path: 'body', message: 'm' })).toEqual({ path: 'input', message: 'm' });
    expect(graphqlIssue({ path: 'query.like', message: 'm' })).toEqual({ path: 'like', message: 'm' });
    expect(graphqlIssue({ path: 'args.ports', message: 'm' })).toEqual({ path: 'ports', message: 'm' });
    // Not a prefix of ours: left as it is.
    expect(graphqlIssue({ path: 'bodyguard.x', message: 'm' })).toEqual({ path: 'bodyguard.x', message: 'm' });
  });

  it('an operation whose body fields are its own arguments names them (startScan(source))', () => {
    const e = withArgumentPaths(new ApiError('VALIDATION_FAILED', 'Invalid body: body.source: unknown fleet', [{ path: 'body.source', message: 'unknown fleet' }]));
    expect(toGraphqlError(e).extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'source', message: 'unknown fleet' }] });
    expect(toGraphqlError(e).message).toBe('Invalid body: source: unknown fleet');
    // Anything else passes unchanged.
    const other = new Error('x');
    expect(withArgumentPaths(other)).toBe(other);
  });

  it('puts every issue of a validation error in extensions.issues, in order, and none when there are none', () => {
    const g = toGraphqlError(new ApiError('VALIDATION_FAILED', 'two problems', [{ path: 'body.a', message: '1' }, { path: 'query.b', message: '2' }]));
    expect(g.extensions['issues']).toEqual([{ path: 'input.a', message: '1' }, { path: 'b', message: '2' }]);
    expect(toGraphqlError(new ApiError('NOT_FOUND', 'no scan')).extensions).not.toHaveProperty('issues');
  });

  it('a scenario error that reaches the GraphQL mapping directly is BAD_USER_INPUT with every problem at input paths', () => {
    const e = new ScenarioError('scenario: 2 problems', undefined, 'kind', [
      { message: 'scenario field kind: bad', field: 'kind' },
      { message: 'step 1: expected an object', step: 1 },
    ]);
    const g = toGraphqlError(e);
    expect(g.message).toBe('scenario: 2 problems');
    expect(g.extensions).toMatchObject({ code: 'BAD_USER_INPUT', issues: [{ path: 'input.kind', message: 'scenario field kind: bad' }, { path: 'input.steps.0', message: 'step 1: expected an object' }] });
  });

  it('the message names the GraphQL argument its issues name, not the REST parameter (headroom like, pipe-validated args)', () => {
    const like = toGraphqlError(new ApiError('VALIDATION_FAILED', 'query.like: unknown node "n9" in cluster c1', [{ path: 'query.like', message: 'unknown node' }]));
    expect(like.message).toBe('like: unknown node "n9" in cluster c1');
    const args = toGraphqlError(
      new ApiError('VALIDATION_FAILED', 'Invalid args: args.ports: too big; body.steps.0.addNodes.count: not a count', [
        { path: 'args.ports', message: 'too big' },
        { path: 'body.steps.0.addNodes.count', message: 'not a count' },
      ]),
    );
    expect(args.message).toBe('Invalid args: ports: too big; input.steps.0.addNodes.count: not a count');
    // A message naming no issue's path is left as it is.
    expect(toGraphqlError(new ApiError('VALIDATION_FAILED', 'query.like is odd', [{ path: 'query.like', message: 'x' }])).message).toBe('query.like is odd');
  });
});
