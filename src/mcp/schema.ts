import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';

type JsonSchemaOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];

/**
 * A tool schema whose JSON Schema form is computed once per process. The SDK converts a schema when
 * a server lists or calls its tool and keeps the result on that server only; the endpoint builds a
 * server per request, so without this every call would convert again (about a third of a call's
 * CPU, measured with bench:mcp). Validation is the schema's own.
 */
export function convertedOnce<S extends StandardSchemaWithJSON>(schema: S): S {
  const standard = schema['~standard'];
  const cache = new Map<string, Record<string, unknown>>();
  const memo = (io: 'input' | 'output') => (options: JsonSchemaOptions) => {
    const key = `${io}:${options.target}`;
    let json = cache.get(key);
    if (json === undefined) {
      json = standard.jsonSchema[io](options);
      cache.set(key, json);
    }
    return json;
  };
  return {
    '~standard': { ...standard, jsonSchema: { input: memo('input'), output: memo('output') } },
  } as unknown as S;
}
