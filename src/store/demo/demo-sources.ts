/**
 * How each log source's demo rows look: the per-source row builders and their shared vocabulary
 * (documentation-range addresses, user agents, routes, statements). Values are drawn with
 * demo-draws.ts. Used by demo-data.ts; nothing here touches a database.
 */
import type { LogTable } from '../schema.ts';
import { HEX4, PAD2, PAD3, uuid, weightedPool } from './demo-draws.ts';
import { Prng } from './prng.ts';

// ---------------------------------------------------------------- shared vocabulary
//
// Metadata JSON is assembled with template literals rather than JSON.stringify (measured: under
// half the CPU). That is only sound because every spliced string is free of quotes, backslashes and
// control characters: the pools below are checked once at load, project refs by PROJECT_REF, and
// the rest are numbers, hex or built from those.

export const PROJECT_REF = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Fixed pools, built once from a constant stream so they do not depend on the seed. */
const poolRng = new Prng(0xdecafbad);

// Documentation address ranges (RFC 5737, RFC 3849): realistic shapes, nobody's real address.
const IPV4 = Array.from({ length: 120 }, () => `${poolRng.pick(['203.0.113', '198.51.100', '192.0.2'])}.${1 + poolRng.int(254)}`);
const IPV6 = Array.from({ length: 40 }, () => `2001:db8:${poolRng.int(0xffff).toString(16)}:${poolRng.int(0xffff).toString(16)}::${(1 + poolRng.int(0xfffe)).toString(16)}`);
// A quarter of clients connect over IPv6 wherever a source picks from this mixed pool.
const CLIENT_IPS = [...IPV4, ...IPV6];
const INTERNAL_IPS = Array.from({ length: 12 }, () => `10.0.${poolRng.int(4)}.${2 + poolRng.int(250)}`);

const EMAILS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'olivia', 'peggy', 'trent', 'victor', 'walter'].flatMap(
  (name) => ['example.com', 'example.org', 'example.net'].map((domain) => `${name}@${domain}`),
);

const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
  'Deno/2.1.1',
  'Dart/3.5 (dart:io)',
  'curl/8.5.0',
  'python-httpx/0.27.2',
];
const CLIENT_INFO = ['supabase-js-web/2.46.1', 'supabase-js-node/2.46.1', 'supabase-flutter/2.8.0', 'supabase-swift/2.20.0', 'supabase-py/2.10.0'];

const FUNCTIONS = ['hello-world', 'stripe-webhook', 'send-email', 'resize-image', 'openai-chat'].map((name) => ({
  name,
  id: uuid(poolRng.u32(), poolRng),
}));

const COUNTRIES = ['US', 'US', 'DE', 'GB', 'FR', 'IN', 'BR', 'JP', 'SG', 'AU', 'NL', 'CA'];
const CACHE_STATUSES = ['DYNAMIC', 'DYNAMIC', 'DYNAMIC', 'HIT', 'MISS', 'BYPASS'];

const ERROR_STATUSES = [400, 401, 401, 403, 404, 404, 404, 406, 409, 429, 500, 502, 503, 504];

interface SourceRow {
  message: string;
  project: string | null;
  /** JSON text of an object. */
  metadata: string;
}
type Source = (r: Prng, project: string, timestamp: string) => SourceRow;

// ---------------------------------------------------------------- edge requests

interface Route {
  path: string;
  search: string[];
  methods: string[];
}

// Paths cover the four areas usage.api-counts counts plus traffic it must not count. Weight = repeats.
const ROUTES: Route[] = weightedPool<Route>([
  [{ path: '/rest/v1/todos', search: ['?select=*', '?select=*&order=inserted_at.desc&limit=20&offset={n}', '?id=eq.{n}', ''], methods: ['GET', 'GET', 'GET', 'POST', 'PATCH', 'DELETE'] }, 12],
  [{ path: '/rest/v1/profiles', search: ['?select=id,username,avatar_url', '?select=*&email=eq.{email}', '?id=eq.{n}'], methods: ['GET', 'GET', 'PATCH'] }, 8],
  [{ path: '/rest/v1/orders', search: ['?select=*,order_items(*)', '?status=eq.pending&limit=50'], methods: ['GET', 'POST'] }, 5],
  [{ path: '/rest/v1/rpc/search_products', search: [''], methods: ['POST'] }, 3],
  // Counts as both /rest and /auth: usage.api-counts counts each area independently (docs/stored-queries.md).
  [{ path: '/rest/v1/rpc/auth_audit', search: [''], methods: ['POST'] }, 1],
  [{ path: '/rest/v1/', search: [''], methods: ['GET', 'OPTIONS'] }, 1],
  [{ path: '/storage/v1/object/public/avatars/user-{n}.png', search: [''], methods: ['GET'] }, 6],
  [{ path: '/storage/v1/object/sign/documents/invoice-{n}.pdf', search: ['?token=eyJhbGciOiJIUzI1NiJ9'], methods: ['GET'] }, 3],
  [{ path: '/storage/v1/object/uploads/photo-{n}.jpg', search: [''], methods: ['POST', 'PUT'] }, 2],
  [{ path: '/storage/v1/bucket', search: [''], methods: ['GET'] }, 1],
  [{ path: '/auth/v1/token', search: ['?grant_type=password', '?grant_type=refresh_token', '?grant_type=refresh_token'], methods: ['POST'] }, 7],
  [{ path: '/auth/v1/user', search: [''], methods: ['GET', 'GET', 'PUT'] }, 4],
  [{ path: '/auth/v1/signup', search: [''], methods: ['POST'] }, 1],
  [{ path: '/auth/v1/otp', search: [''], methods: ['POST'] }, 1],
  [{ path: '/auth/v1/logout', search: [''], methods: ['POST'] }, 1],
  [{ path: '/auth/v1/admin/users', search: ['?email={email}'], methods: ['GET'] }, 1],
  [{ path: '/realtime/v1/websocket', search: ['?vsn=1.0.0'], methods: ['GET'] }, 8],
  [{ path: '/realtime/v1/api/broadcast', search: [''], methods: ['POST'] }, 1],
  [{ path: '/graphql/v1', search: [''], methods: ['POST', 'POST', 'GET'] }, 3],
  [{ path: '/functions/v1/{function}', search: [''], methods: ['POST', 'POST', 'GET'] }, 4],
  [{ path: '/pg/meta/tables', search: [''], methods: ['GET'] }, 1],
  [{ path: '/', search: [''], methods: ['GET'] }, 1],
]);

function okStatus(method: string, path: string): number {
  if (path === '/realtime/v1/websocket') return 101;
  if (method === 'POST' && path.startsWith('/rest/v1/') && !path.includes('/rpc/')) return 201;
  if (method === 'DELETE' || method === 'OPTIONS') return 204;
  return 200;
}

/**
 * Ids in paths and query strings come from a large range, as a real table's primary keys do: most
 * requests that carry one have a URL of their own (what usage.api-counts' rollup must cope with).
 */
const ID_RANGE = 1_000_000;

/** Fill the {n}, {email} and {function} placeholders of a route template. */
function fill(template: string, r: Prng): string {
  if (!template.includes('{')) return template;
  return template.replace('{n}', String(1 + r.int(ID_RANGE))).replace('{email}', r.pick(EMAILS)).replace('{function}', r.pick(FUNCTIONS).name);
}

const edge: Source = (r, project) => {
  const route = r.pick(ROUTES);
  const path = fill(route.path, r);
  const search = fill(r.pick(route.search), r);
  const method = r.pick(route.methods);
  const status = r.chance(0.07) ? r.pick(ERROR_STATUSES) : okStatus(method, path);
  const ip = r.chance(0.2) ? r.pick(IPV6) : r.pick(IPV4);
  const ua = r.pick(USER_AGENTS);
  const host = `${project}.example.co`;
  const url = `https://${host}${path}${search}`;
  const requestId = uuid(r.u32(), r);
  // Kong's `content_length` headers, as text (Studio's API report sums them as network traffic):
  // on requests that carry a body, and on every response that is not an upgrade or empty.
  const requestLength = method === 'POST' || method === 'PATCH' || method === 'PUT' ? `,"content_length":"${40 + r.int(4000)}"` : '';
  const responseLength = status === 101 || status === 204 ? '' : `,"content_length":"${status >= 400 ? 60 + r.int(200) : 200 + r.int(20000)}"`;
  return {
    message: `${method} | ${status} | ${ip} | ${requestId} | ${url} | ${ua}`,
    project,
    // Supabase's Vector/Kong pipeline writes header names in snake_case (docs/logflare-compat.md).
    metadata:
      `{"request_id":"${requestId}","request":{"url":"${url}","path":"${path}","method":"${method}","host":"${host}","search":"${search}","protocol":"https:",` +
      `"headers":{"x_forwarded_for":"${ip}","cf_connecting_ip":"${ip}","x_real_ip":"${ip}","user_agent":"${ua}","x_client_info":"${r.pick(CLIENT_INFO)}",` +
      `"accept":"application/json","referer":"https://${host}/"${requestLength}},"cf":{"country":"${r.pick(COUNTRIES)}","asn":${13335 + r.int(50000)}}},` +
      `"response":{"status_code":${status},"origin_time":${r.chance(0.03) ? 1000 + r.int(4000) : 2 + r.int(400)},"headers":{"cf_cache_status":"${r.pick(CACHE_STATUSES)}","content_type":"application/json"${responseLength}}}}`,
  };
};

// ---------------------------------------------------------------- database and pooler

const STATEMENTS = [
  'select * from public.todos where user_id = $1 order by inserted_at desc limit 20',
  'insert into public.orders (customer_id, total) values ($1, $2) returning id',
  'update public.profiles set avatar_url = $1 where id = $2',
  'select count(*) from public.orders where status = $1',
  'delete from public.todos where id = $1',
  'COMMIT',
];
const APPS = ['PostgREST 12.2.3', 'postgres_exporter', 'psql', 'supabase_admin', 'pg_net 0.14.0'];
const DB_USERS = ['authenticator', 'postgres', 'supabase_admin', 'supabase_auth_admin', 'supabase_storage_admin'];

const CRON_COMMANDS = ['select net.http_post(url := current_setting(app.settings.webhook_url))', 'delete from public.todos where done and updated_at < now() - interval 30 days', 'vacuum analyze public.orders'];

const postgres: Source = (r, project, ts) => {
  let user = r.pick(DB_USERS);
  let app = r.pick(APPS);
  let extra = '';
  const client = r.chance(0.15) ? r.pick(CLIENT_IPS) : r.pick(INTERNAL_IPS);
  const port = 30000 + r.int(30000);
  let severity = 'LOG';
  let sqlState = '00000';
  let message: string;
  const kind = r.int(100);
  if (kind < 25) message = `statement: ${r.pick(STATEMENTS)}`;
  else if (kind < 50) message = `duration: ${r.int(250)}.${PAD3[r.int(1000)]} ms  statement: ${r.pick(STATEMENTS)}`;
  else if (kind < 62) message = `connection received: host=${client} port=${port}`;
  else if (kind < 74) message = `connection authorized: user=${user} database=postgres application_name=${app}`;
  else if (kind < 84) message = `disconnection: session time: 0:00:${PAD2[r.int(60)]}.${PAD3[r.int(1000)]} user=${user} database=postgres host=${client} port=${port}`;
  else if (kind < 90) message = r.chance(0.5) ? 'checkpoint starting: time' : `checkpoint complete: wrote ${r.int(2000)} buffers (${r.int(5)}.${r.int(10)}%)`;
  else if (kind < 91) message = `automatic vacuum of table "postgres.public.${r.pick(['todos', 'orders', 'profiles'])}": index scans: ${r.int(3)}`;
  else if (kind < 95) {
    // pg_cron's own rows, as Studio's pg_cron page looks for them.
    const job = 1 + r.int(3);
    app = 'pg_cron';
    user = 'postgres';
    message = r.chance(0.5) ? `cron job ${job} starting: ${CRON_COMMANDS[job - 1]}` : `cron job ${job} COMMAND completed: ${r.int(50)} rows`;
    extra = `,"query":"${CRON_COMMANDS[job - 1]}"`;
  } else if (kind < 98) {
    severity = 'ERROR';
    sqlState = '23505';
    message = `duplicate key value violates unique constraint "profiles_email_key"`;
    extra = `,"detail":"Key (email)=(${r.pick(EMAILS)}) already exists.","query":"${STATEMENTS[2]}"`;
  } else {
    severity = 'FATAL';
    sqlState = '28P01';
    message = `password authentication failed for user "${user}"`;
    extra = `,"detail":"Connection matched pg_hba.conf line 89","hint":"Check the password of role ${user}."`;
  }
  const session = `${(0x6500000 + r.int(0xffffff)).toString(16)}.${(1000 + r.int(60000)).toString(16)}`;
  return {
    message,
    project,
    metadata:
      `{"host":"db-${project}","parsed":{"error_severity":"${severity}","sql_state_code":"${sqlState}","user_name":"${user}","database_name":"postgres",` +
      `"application_name":"${app}","backend_type":"client backend","connection_from":"${client}(${port})","process_id":${1000 + r.int(60000)},` +
      `"session_id":"${session}","timestamp":"${ts.replace('T', ' ').replace('Z', ' UTC')}"${extra}}}`,
  };
};

const pgbouncer: Source = (r, project) => {
  const client = `${r.pick(INTERNAL_IPS)}:${30000 + r.int(30000)}`;
  const conn = `C-0x${HEX4[r.int(65536)]}${HEX4[r.int(65536)]}`;
  const user = r.pick(DB_USERS);
  const kind = r.int(10);
  const message =
    kind < 4
      ? `${conn}: postgres/${user}@${client} login attempt: db=postgres user=${user} tls=${r.chance(0.7) ? 'TLSv1.3/TLS_AES_256_GCM_SHA384' : 'no'}`
      : kind < 7
        ? `${conn}: postgres/${user}@${client} closing because: client close request (age=${r.int(600)}s)`
        : `stats: ${r.int(300)} xacts/s, ${r.int(1200)} queries/s, in ${r.int(90000)} B/s, out ${r.int(400000)} B/s, xact ${r.int(5000)} us, query ${r.int(2000)} us, wait ${r.int(100)} us`;
  return { message, project, metadata: `{"host":"pooler-${project}","level":"LOG","pid":${1 + r.int(400)}}` };
};

// ---------------------------------------------------------------- functions

const functionEdge: Source = (r, project) => {
  const fn = r.pick(FUNCTIONS);
  const method = r.chance(0.8) ? 'POST' : 'GET';
  const status = r.chance(0.06) ? r.pick([400, 401, 500, 500, 546]) : 200;
  const host = `${project}.example.co`;
  const url = `https://${host}/functions/v1/${fn.name}`;
  const version = 1 + r.int(12);
  return {
    message: `${method} | ${status} | ${url}`,
    project: null,
    metadata:
      `{"project_ref":"${project}","function_id":"${fn.id}","deployment_id":"${project}_${fn.id}_${version}","version":"${version}",` +
      `"execution_time_ms":${5 + r.int(1500)},"request":{"method":"${method}","url":"${url}","pathname":"/${fn.name}","host":"${host}"},` +
      `"response":{"status_code":${status}}}`,
  };
};

const FUNCTION_ERRORS = ['Error: fetch failed', "TypeError: Cannot read properties of undefined (reading 'id')", 'Error: Stripe signature verification failed'];
const FUNCTION_LINES = ['Listening on http://localhost:9999/', 'processing order', 'image resized to 512x512', 'completion finished in 1.2s', 'webhook event: checkout.session.completed'];

const functionLog: Source = (r, project) => {
  const fn = r.pick(FUNCTIONS);
  const kind = r.int(20);
  let level = 'log';
  let eventType = 'Log';
  let message: string;
  if (kind < 2) {
    eventType = 'Boot';
    level = 'info';
    message = `booted (time: ${10 + r.int(80)}ms)`;
  } else if (kind < 3) {
    eventType = 'Shutdown';
    level = 'info';
    message = 'shutdown';
  } else if (kind < 5) {
    level = 'error';
    message = r.pick(FUNCTION_ERRORS);
  } else if (kind < 9) message = `sending receipt to ${r.pick(EMAILS)}`;
  else if (kind < 11) message = `request from ${r.pick(CLIENT_IPS)}`;
  else message = r.pick(FUNCTION_LINES);
  return {
    message,
    project: null,
    metadata: `{"project_ref":"${project}","function_id":"${fn.id}","execution_id":"${uuid(r.u32(), r)}","level":"${level}","event_type":"${eventType}"}`,
  };
};

// ---------------------------------------------------------------- auth, realtime, storage, REST

const auth: Source = (r, project) => {
  const email = r.pick(EMAILS);
  const kind = r.int(20);
  const [message, action, path, status, level] =
    kind < 8
      ? [`user signed in: ${email}`, 'login', '/token', 200, 'info']
      : kind < 13
        ? ['token refreshed', 'token_refreshed', '/token', 200, 'info']
        : kind < 15
          ? [`user signed up: ${email}`, 'user_signedup', '/signup', 200, 'info']
          : kind < 16
            ? [`password recovery requested: ${email}`, 'user_recovery_requested', '/recover', 200, 'info']
            : kind < 18
              ? [`invalid login credentials: ${email}`, 'login', '/token', 400, 'warning']
              : ['user logged out', 'logout', '/logout', 204, 'info'];
  const actor = message.includes('@') ? `"actor_username":"${email}",` : '';
  const outcome = status >= 400 ? `"msg":"400: Invalid login credentials","error":"invalid_grant",` : `"msg":"request completed",`;
  return {
    // GoTrue logs JSON lines; Studio's Logs Explorer template matches `level.{3}info` in them.
    message: `{"component":"api","level":"${level}","method":"POST","msg":"${message}","path":"${path}","status":${status}}`,
    project,
    metadata:
      `{"level":"${level}","component":"api","action":"${action}","method":"POST","path":"${path}","status":${status},${outcome}` +
      `"remote_addr":"${r.pick(CLIENT_IPS)}","request_id":"${uuid(r.u32(), r)}",${actor}"duration":${1_000_000 + r.int(90_000_000)}}`,
  };
};

const REGIONS = ['us-east-1', 'eu-central-1', 'ap-southeast-1'];
const CHANNEL_TABLES = ['todos', 'orders', 'messages'];

const realtime: Source = (r, project) => {
  const table = r.pick(CHANNEL_TABLES);
  const kind = r.int(10);
  const message =
    kind < 4
      ? `Connected to channel realtime:public:${table}`
      : kind < 6
        ? `Subscribed to PostgreSQL changes on public.${table}`
        : kind < 8
          ? `Billing metrics: ${r.int(500)} messages, ${r.int(40)} connections`
          : kind < 9
            ? `Client disconnected: ${r.pick(CLIENT_IPS)}`
            : 'Tenant connection closed';
  return {
    message,
    project: null,
    metadata: `{"project":"${project}","external_id":"${project}","level":"${kind === 9 ? 'warning' : 'info'}","region":"${r.pick(REGIONS)}"}`,
  };
};

const storage: Source = (r, project) => {
  const method = r.chance(0.75) ? 'GET' : 'POST';
  const url = method === 'GET' ? `/object/public/avatars/user-${1 + r.int(5000)}.png` : `/object/uploads/photo-${1 + r.int(5000)}.jpg`;
  const status = r.chance(0.05) ? r.pick([400, 403, 404, 500]) : 200;
  return {
    message: r.chance(0.5) ? 'request completed' : 'incoming request',
    project: null,
    metadata:
      `{"project":"${project}","tenantId":"${project}","level":"${status >= 500 ? 'error' : 'info'}","reqId":"req-${HEX4[r.int(65536)]}",` +
      `"req":{"method":"${method}","url":"${url}","remoteAddress":"${r.pick(CLIENT_IPS)}"},"res":{"statusCode":${status}},"responseTime":${r.int(200)}.${PAD3[r.int(1000)]}}`,
  };
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const REST_PATHS = ['/todos?select=*', '/profiles?select=id,username', '/orders?status=eq.pending', '/rpc/search_products'];
const REST_ROLES = ['anon', 'authenticated', 'authenticated', 'service_role'];
const REST_STARTUP = ['Schema cache loaded', 'Config reloaded', 'Listening on port 3000', 'Connection successful'];

const postgrest: Source = (r, project, ts) => {
  const role = r.pick(REST_ROLES);
  const path = r.pick(REST_PATHS);
  const method = path.startsWith('/rpc/') ? 'POST' : 'GET';
  const status = r.chance(0.05) ? r.pick([400, 401, 404, 406]) : 200;
  // Apache combined log format, as PostgREST prints it; the date comes from the row's own timestamp.
  const date = `${ts.slice(8, 10)}/${MONTHS[Number(ts.slice(5, 7)) - 1]}/${ts.slice(0, 4)}:${ts.slice(11, 19)} +0000`;
  const message =
    r.int(20) === 0
      ? r.pick(REST_STARTUP)
      : `${r.pick(CLIENT_IPS)} - ${role} [${date}] "${method} ${path} HTTP/1.1" ${status} - "" "${r.pick(USER_AGENTS)}"`;
  return { message, project, metadata: `{"host":"rest-${project}","role":"${role}","method":"${method}","path":"${path}","status_code":${status}}` };
};

export const SOURCES: Record<LogTable, Source> = {
  edge_logs: edge,
  postgres_logs: postgres,
  function_edge_logs: functionEdge,
  function_logs: functionLog,
  auth_logs: auth,
  realtime_logs: realtime,
  storage_logs: storage,
  postgrest_logs: postgrest,
  pgbouncer_logs: pgbouncer,
};

// The template-built JSON above trusts these never to need escaping; fail at load if one would.
for (const s of [
  ...CLIENT_IPS, ...INTERNAL_IPS, ...EMAILS, ...USER_AGENTS, ...CLIENT_INFO, ...APPS, ...DB_USERS, ...REST_PATHS, ...REST_ROLES, ...REGIONS,
  ...COUNTRIES, ...CACHE_STATUSES, ...CRON_COMMANDS, ...STATEMENTS,
  ...ROUTES.flatMap((route) => [route.path, ...route.search, ...route.methods]), ...FUNCTIONS.map((fn) => fn.name),
]) {
  if (/["\\\u0000-\u001f]/.test(s)) throw new Error(`demo-data: ${JSON.stringify(s)} would need JSON escaping`);
}
