/**
 * Stands in for `ajv` and `ajv-formats` in the MCP server's bundle (rolldown.config.mjs): the SDK
 * imports them statically but only constructs them when no validator is given, and server.ts
 * always gives one. Constructed anyway (an SDK change), it fails loudly instead of validating
 * nothing.
 */
export default class AjvLeftOutOfTheBundle {
  constructor() {
    throw new Error('ajv is not bundled into treewarden mcp; pass a jsonSchemaValidator (see mcp/server.ts)');
  }
}
