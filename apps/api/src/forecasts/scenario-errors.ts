import { ScenarioError, type ScenarioIssue } from '@app/forecast';
import { ApiError } from '../common/api.exception';

/**
 * Where in the request body a scenario problem is: `body` + `.steps.<0-based index>` for a step's + `.<field>`
 * (`body.apiVersion`, `body.steps.1.addNodes.count`, `body.steps.0` for a step that is not an object of one key).
 */
export function bodyPathOf(issue: ScenarioIssue): string {
  return `body${issue.step ? `.steps.${issue.step - 1}` : ''}${issue.field ? `.${issue.field}` : ''}`;
}

/**
 * An invalid what-if scenario (libs/forecast ScenarioError) as the API answers it: VALIDATION_FAILED (REST 400,
 * GraphQL BAD_USER_INPUT) with the error's message and one `{ path, message }` issue per problem (`path` as bodyPathOf
 * gives it; at most MAX_SCENARIO_ISSUES, as the error holds them). Used by the forecasts service and, for a
 * ScenarioError that reaches a transport some other way, by the REST exception filter and the GraphQL error mapping,
 * so no path loses the issues.
 */
export function scenarioApiError(e: ScenarioError): ApiError {
  return new ApiError('VALIDATION_FAILED', e.message, e.issues.map((i) => ({ path: bodyPathOf(i), message: i.message })));
}
