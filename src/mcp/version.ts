/** The server version reported in MCP initialize. */
export const API_VERSION_STRING = '2.0.1';
