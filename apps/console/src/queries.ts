/**
 * The console's GraphQL documents (apps/api/schema.gql; queries.spec.ts validates each against it, so a schema change
 * that breaks one fails the unit tests rather than the page).
 */

/** Clusters of one account and region, 5 a page: with 100 Services each, within the API's query cost limit (1000). */
export const CLUSTERS_QUERY = `query Clusters($accountId: String, $regionId: String, $after: String) {
  clusters(accountId: $accountId, regionId: $regionId, first: 5, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes {
      clusterId accountId regionId name clusterType currentVersion ccmVersion networkPlugin nodeCount serviceCount
      services(first: 100) { totalCount nodes { namespace name mode externalTrafficPolicy loadBalancerId loadBalancerKind nlbId ports { port protocol nodePort } } }
    }
  }
}`;
