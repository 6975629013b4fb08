/**
 * A structural check of an OpenAPI 3.1 document (no validator library: no new dependencies). It
 * covers what clients and generators trip over: the version, info, path and operation shapes,
 * parameter objects, response keys, unique operation ids, security schemes and requirements, every
 * `$ref` resolving, and JSON Schema keywords used sanely. Returns the problems found.
 */
type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PATH_ITEM_KEYS = new Set([...METHODS, 'summary', 'description', 'servers', 'parameters', '$ref']);
const PARAM_IN = new Set(['query', 'header', 'path', 'cookie']);
const SCHEMA_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const SCHEME_TYPES = new Set(['apiKey', 'http', 'mutualTLS', 'oauth2', 'openIdConnect']);

export function checkOpenApi31(doc: Json): string[] {
  const problems: string[] = [];
  const fail = (where: string, what: string) => problems.push(`${where}: ${what}`);

  const resolve = (ref: string): unknown => {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object' || !(key in (node as Json))) return undefined;
      node = (node as Json)[key];
    }
    return node;
  };
  const deref = (v: Json): Json => (typeof v?.$ref === 'string' ? ((resolve(v.$ref) as Json) ?? {}) : v);

  // Every $ref anywhere resolves inside the document.
  const walk = (node: unknown, where: string) => {
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${where}/${i}`));
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref') {
        if (typeof v !== 'string' || resolve(v) === undefined) fail(where, `unresolvable $ref ${String(v)}`);
      } else walk(v, `${where}/${k}`);
    }
  };
  walk(doc, '#');

  const checkSchema = (s: Json, where: string) => {
    if (s === null || typeof s !== 'object') return fail(where, 'schema must be an object');
    if (s.$ref !== undefined) return;
    const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
    for (const t of types) if (!SCHEMA_TYPES.has(t)) fail(where, `unknown type ${t}`);
    if (s.enum !== undefined && (!Array.isArray(s.enum) || s.enum.length === 0)) fail(where, 'enum must be a non-empty array');
    if (s.required !== undefined) {
      if (!Array.isArray(s.required)) fail(where, 'required must be an array');
      else if (s.properties) for (const r of s.required) if (!(r in s.properties)) fail(where, `required ${r} is not a property`);
    }
    if (s.properties) for (const [k, v] of Object.entries(s.properties)) checkSchema(v as Json, `${where}/properties/${k}`);
    if (s.items) checkSchema(s.items, `${where}/items`);
  };

  if (typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi)) fail('openapi', 'must be 3.1.x');
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') fail('info', 'title and version are required strings');
  if (doc.paths === null || typeof doc.paths !== 'object') fail('paths', 'must be an object');

  const schemes: Json = doc.components?.securitySchemes ?? {};
  for (const [name, s] of Object.entries(schemes) as [string, Json][]) {
    if (!SCHEME_TYPES.has(s.type)) fail(`securitySchemes.${name}`, `bad type ${s.type}`);
    if (s.type === 'apiKey' && (typeof s.name !== 'string' || !['query', 'header', 'cookie'].includes(s.in))) fail(`securitySchemes.${name}`, 'apiKey needs name and in');
    if (s.type === 'http' && typeof s.scheme !== 'string') fail(`securitySchemes.${name}`, 'http needs scheme');
  }
  const checkSecurity = (req: unknown, where: string) => {
    if (req === undefined) return;
    if (!Array.isArray(req)) return fail(where, 'security must be an array');
    for (const r of req) for (const name of Object.keys(r)) if (!(name in schemes)) fail(where, `unknown security scheme ${name}`);
  };
  checkSecurity(doc.security, 'security');
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) checkSchema(s as Json, `components.schemas.${name}`);

  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    if (!path.startsWith('/')) fail(path, 'paths start with /');
    for (const key of Object.keys(item)) if (!PATH_ITEM_KEYS.has(key)) fail(path, `unexpected path item field ${key}`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (op.operationId !== undefined) {
        if (operationIds.has(op.operationId)) fail(where, `duplicate operationId ${op.operationId}`);
        operationIds.add(op.operationId);
      }
      checkSecurity(op.security, where);
      const seen = new Set<string>();
      for (const raw of op.parameters ?? []) {
        const p = deref(raw);
        if (typeof p.name !== 'string' || !PARAM_IN.has(p.in)) {
          fail(where, `parameter needs name and in: ${JSON.stringify(raw)}`);
          continue;
        }
        const id = `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
        if (seen.has(id)) fail(where, `duplicate parameter ${id}`);
        seen.add(id);
        if ((p.schema === undefined) === (p.content === undefined)) fail(where, `parameter ${p.name} needs exactly one of schema and content`);
        if (p.schema) checkSchema(p.schema, `${where} parameter ${p.name}`);
        if (p.in === 'path' && (p.required !== true || !templated.includes(p.name))) fail(where, `path parameter ${p.name} must be required and templated`);
        if (p.required !== undefined && typeof p.required !== 'boolean') fail(where, `parameter ${p.name}: required must be boolean`);
      }
      for (const t of templated) if (!seen.has(`path:${t}`)) fail(where, `templated {${t}} has no path parameter`);
      if (op.requestBody) {
        const body = deref(op.requestBody);
        if (!body.content || typeof body.content !== 'object') fail(where, 'requestBody needs content');
        for (const [type, media] of Object.entries(body.content ?? {}) as [string, Json][]) if (media.schema) checkSchema(media.schema, `${where} body ${type}`);
      }
      const responses = op.responses as Json | undefined;
      if (!responses || Object.keys(responses).length === 0) {
        fail(where, 'responses must be a non-empty object');
        continue;
      }
      for (const [code, raw] of Object.entries(responses) as [string, Json][]) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(code)) fail(where, `bad response key ${code}`);
        const r = deref(raw);
        if (typeof r.description !== 'string') fail(`${where} ${code}`, 'response needs a description');
        for (const [type, media] of Object.entries(r.content ?? {}) as [string, Json][]) if (media.schema) checkSchema(media.schema, `${where} ${code} ${type}`);
      }
    }
  }
  return problems;
}
