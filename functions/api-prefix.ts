/** Where the API is mounted: REST routes, MCP, OAuth endpoints and the links runs hand out all start here. */
export const API_PREFIX = '/api/platform/v1';
