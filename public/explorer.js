// The explorer page (GET /): lists the stored queries a token may call, builds a form from each
// one's declared parameters, runs it and shows the answer. No framework and no build step; values
// reach the page only through textContent and attributes, never as markup. The token stays in
// sessionStorage (this tab) and in request headers, never in a URL.
'use strict';

(function () {
  var TOKEN_KEY = 'endpoints-token';
  var MAX_CHART_SERIES = 5;
  var state = { token: '', query: null, params: null, seen: null };

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svg(tag, attrs) {
    var node = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    return node;
  }

  function call(path) {
    return fetch(path, { headers: { 'X-API-KEY': state.token, Accept: 'application/json' }, cache: 'no-store' }).then(function (res) {
      return res.text().then(function (text) {
        var body = null;
        try { body = JSON.parse(text); } catch (e) { body = null; }
        return { res: res, text: text, body: body };
      });
    });
  }

  function errorText(res, body) {
    var e = body && body.error;
    return e ? res.status + ' ' + e.code + ': ' + e.message : res.status + ' ' + res.statusText;
  }

  // --- token -------------------------------------------------------------------------------

  function useToken(token) {
    state.token = token;
    if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
    loadQueries();
  }

  function loadQueries() {
    var status = $('token-status');
    $('queries-section').hidden = true;
    $('call-section').hidden = true;
    if (!state.token) { status.textContent = ''; return; }
    status.className = '';
    status.textContent = 'Checking the token…';
    call('/api/endpoints').then(function (r) {
      if (!r.res.ok) {
        status.className = 'error';
        status.textContent = errorText(r.res, r.body);
        return;
      }
      var queries = r.body.result;
      status.textContent = queries.length + ' stored ' + (queries.length === 1 ? 'query' : 'queries') + ' this token may call.';
      var list = $('queries');
      list.replaceChildren();
      queries.forEach(function (q) {
        var item = el('li');
        var button = el('button', { type: 'button', 'data-query': q.name }, q.name);
        button.addEventListener('click', function () { openQuery(q, button); });
        item.append(button, el('span', { class: 'desc' }, q.description));
        list.append(item);
      });
      $('queries-section').hidden = false;
    }, function (err) {
      status.className = 'error';
      status.textContent = 'The service did not answer: ' + err.message;
    });
  }

  // --- the form of one stored query --------------------------------------------------------

  function openQuery(q, button) {
    state.query = q;
    Array.prototype.forEach.call($('queries').querySelectorAll('button'), function (b) { b.removeAttribute('aria-current'); });
    button.setAttribute('aria-current', 'true');
    $('call-heading').textContent = q.name;
    $('call-description').textContent = q.description;
    var params = $('params');
    params.replaceChildren();
    q.parameters.forEach(function (p) { params.append(field(p)); });
    clearAnswer();
    $('call-section').hidden = false;
    var first = params.querySelector('input, select');
    (first || $('run')).focus();
  }

  function field(p) {
    var label = el('label');
    label.append(el('span', null, p.name + (p.required ? ' *' : '')));
    var input;
    if (p.type === 'enum') {
      input = el('select', { name: p.name });
      if (!p.required) input.append(el('option', { value: '' }, '(none)'));
      p.values.forEach(function (v) { input.append(el('option', { value: v }, v)); });
    } else if (p.type === 'timestamp') {
      input = el('input', { name: p.name, type: 'datetime-local', step: '1' });
    } else if (p.type === 'boolean') {
      input = el('select', { name: p.name });
      ['', 'true', 'false'].forEach(function (v) { input.append(el('option', { value: v }, v || '(none)')); });
    } else {
      input = el('input', { name: p.name, type: p.type === 'integer' || p.type === 'number' ? 'number' : 'text', spellcheck: 'false' });
      if (p.type === 'integer') input.setAttribute('step', '1');
    }
    if (p.required) input.required = true;
    // The stored query's example value (the demo data's project), ready to run.
    if (p.example !== undefined && p.type !== 'timestamp') input.value = p.example;
    input.dataset.type = p.type;
    label.append(input);
    // The form takes local time and sends UTC; the description speaks of the API, where no offset means UTC.
    var note = p.type === 'timestamp' ? 'Entered here in your local time, sent as UTC.' : '';
    if (p.description || note) label.append(el('small', null, [p.description, note].filter(Boolean).join(' ')));
    return label;
  }

  /** The form's values as query-string pairs; a local date-time becomes ISO 8601 in UTC. */
  function formParams() {
    var params = new URLSearchParams();
    Array.prototype.forEach.call($('params').querySelectorAll('input, select'), function (input) {
      var value = input.value;
      if (value === '') return;
      if (input.dataset.type === 'timestamp') value = new Date(value).toISOString();
      params.append(input.name, value);
    });
    return params;
  }

  // --- running it and showing the answer ---------------------------------------------------

  function clearAnswer() {
    ['error', 'meta', 'curl-box', 'chart', 'table-wrap', 'older'].forEach(function (id) { $(id).hidden = true; });
    $('rows').replaceChildren();
  }

  function run(params, older) {
    var q = state.query;
    var path = q.path + '?' + params.toString();
    $('run').disabled = true;
    $('older').disabled = true;
    return call(path).then(function (r) {
      var rows = r.res.ok ? r.body.result : null;
      // Older rows start at the oldest row shown (inclusive): rows already shown are left out, and said so.
      var fresh = rows && older ? rows.filter(function (row) { return !state.seen.has(row.id); }) : rows;
      showMeta(r.res, r.body, fresh);
      showCurl(path);
      if (!r.res.ok) {
        clearRows();
        $('error').textContent = errorText(r.res, r.body);
        $('error').hidden = false;
        return;
      }
      $('error').hidden = true;
      if (!older) state.seen = new Set();
      fresh.forEach(function (row) { if (row.id !== undefined) state.seen.add(row.id); });
      state.params = params;
      showRows(fresh, q);
      showChart(fresh, q);
      showOlder(fresh, rows.length, q);
    }, function (err) {
      $('error').textContent = 'The service did not answer: ' + err.message;
      $('error').hidden = false;
    }).finally(function () {
      $('run').disabled = false;
      $('older').disabled = false;
    });
  }

  function showMeta(res, body, shown) {
    var meta = $('meta');
    meta.replaceChildren();
    var items = [['Status', res.status + ' ' + res.statusText]];
    if (shown) {
      var repeated = body.result.length - shown.length;
      items.push(['Rows', String(shown.length) + (repeated > 0 ? ' new (' + repeated + ' already shown)' : '') + (res.headers.get('X-Result-Truncated') ? ' (truncated)' : '')]);
    }
    ['Cache-Status', 'Server-Timing', 'X-Request-Id'].forEach(function (h) {
      var v = res.headers.get(h);
      if (v !== null) items.push([h, v]);
    });
    items.forEach(function (pair) {
      var div = el('div');
      div.append(el('dt', null, pair[0]), el('dd', { 'data-meta': pair[0] }, pair[1]));
      meta.append(div);
    });
    meta.hidden = false;
  }

  /** A shell line that makes the same call: the token from $TOKEN, the URL single-quoted. */
  function showCurl(path) {
    var url = location.origin + path;
    $('curl').value = 'curl -H "X-API-KEY: $TOKEN" \'' + url.replace(/'/g, "'\\''") + '\'';
    $('curl-box').hidden = false;
  }

  function clearRows() {
    $('rows').replaceChildren();
    $('table-wrap').hidden = true;
    $('chart').hidden = true;
    $('older').hidden = true;
  }

  function showRows(rows, q) {
    var table = $('rows');
    table.replaceChildren();
    var columns = rows.length > 0 ? Object.keys(rows[0]) : Object.keys(q.columns);
    table.append(el('caption', { class: 'hint' }, rows.length === 0 ? 'No rows.' : rows.length + ' rows'));
    var head = el('thead');
    var tr = el('tr');
    columns.forEach(function (c) { tr.append(el('th', { scope: 'col' }, c)); });
    head.append(tr);
    var body = el('tbody');
    rows.forEach(function (row) {
      var line = el('tr');
      columns.forEach(function (c) { line.append(cell(row[c])); });
      body.append(line);
    });
    table.append(head, body);
    $('table-wrap').hidden = false;
  }

  /** A value's cell: nested JSON folded (its keys on the summary), the rest as text. */
  function cell(value) {
    if (value === null || value === undefined) return el('td', { class: 'null' }, 'null');
    if (typeof value !== 'object') return el('td', null, String(value));
    var td = el('td');
    var details = el('details');
    var keys = Array.isArray(value) ? '[' + value.length + ' items]' : '{' + Object.keys(value).slice(0, 4).join(', ') + (Object.keys(value).length > 4 ? ', …' : '') + '}';
    details.append(el('summary', null, keys), el('pre', null, JSON.stringify(value, null, 2)));
    td.append(details);
    return td;
  }

  /** Rows with a timestamp and numeric columns (and nothing nested) are drawn: one line per numeric column. */
  function showChart(rows, q) {
    var figure = $('chart');
    figure.replaceChildren();
    var types = q.columns;
    var series = Object.keys(types).filter(function (c) { return types[c] === 'integer' || types[c] === 'number'; }).slice(0, MAX_CHART_SERIES);
    var nested = Object.keys(types).some(function (c) { return types[c] === 'object' || types[c] === 'array'; });
    if (types.timestamp !== 'timestamp' || series.length === 0 || nested || rows.length === 0) { figure.hidden = true; return; }
    var points = rows.slice().sort(function (a, b) { return Date.parse(a.timestamp) - Date.parse(b.timestamp); });
    var W = 640, H = 220, L = 44, R = 12, T = 10, B = 28;
    var max = 1;
    points.forEach(function (row) { series.forEach(function (s) { max = Math.max(max, Number(row[s]) || 0); }); });
    var x = function (i) { return points.length === 1 ? (L + W - R) / 2 : L + (i * (W - L - R)) / (points.length - 1); };
    var y = function (v) { return T + (H - T - B) * (1 - v / max); };
    var chart = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': q.name + ': ' + series.join(', ') + ' per ' + points.length + ' buckets' });
    chart.append(svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }), svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }));
    var maxLabel = svg('text', { x: L - 6, y: T + 8, 'text-anchor': 'end' });
    maxLabel.textContent = String(max);
    var zero = svg('text', { x: L - 6, y: H - B, 'text-anchor': 'end' });
    zero.textContent = '0';
    var first = svg('text', { x: L, y: H - 8 });
    first.textContent = points[0].timestamp.slice(0, 16).replace('T', ' ');
    var last = svg('text', { x: W - R, y: H - 8, 'text-anchor': 'end' });
    last.textContent = points[points.length - 1].timestamp.slice(0, 16).replace('T', ' ');
    chart.append(maxLabel, zero, first, last);
    series.forEach(function (s, k) {
      var g = svg('g', { class: 's' + k, 'data-series': s });
      g.append(svg('polyline', { points: points.map(function (row, i) { return x(i) + ',' + y(Number(row[s]) || 0); }).join(' ') }));
      points.forEach(function (row, i) {
        var dot = svg('circle', { cx: x(i), cy: y(Number(row[s]) || 0), r: 3 });
        var title = svg('title', {});
        title.textContent = s + ' ' + row[s] + ' at ' + row.timestamp;
        dot.append(title);
        g.append(dot);
      });
      chart.append(g);
    });
    var legend = el('figcaption', { class: 'legend' });
    series.forEach(function (s, k) {
      var item = el('span');
      item.append(el('i', { class: 's' + k, 'aria-hidden': 'true' }), document.createTextNode(s));
      legend.append(item);
    });
    figure.append(chart, legend);
    figure.hidden = false;
  }

  /** Older rows: the same call ending at the oldest row shown (inclusive), rows already shown left out. */
  /** Offered only after a full answer (as many rows as one call returns): a shorter one already holds the oldest. */
  function showOlder(rows, answered, q) {
    var pages = q.parameters.some(function (p) { return p.name === 'iso_timestamp_end'; }) && q.columns.timestamp === 'timestamp' && q.columns.id !== undefined;
    $('older').hidden = !(pages && rows.length > 0 && answered >= q.settings.rowsPerCall);
  }

  function older() {
    var rows = $('rows').querySelectorAll('tbody tr');
    if (rows.length === 0) return;
    var columns = Array.prototype.map.call($('rows').querySelectorAll('thead th'), function (th) { return th.textContent; });
    var at = columns.indexOf('timestamp');
    var oldest = rows[rows.length - 1].children[at].textContent;
    var params = new URLSearchParams(state.params);
    params.set('iso_timestamp_end', oldest);
    run(params, true);
  }

  // --- wiring ------------------------------------------------------------------------------

  document.addEventListener('DOMContentLoaded', function () {
    $('token-form').addEventListener('submit', function (event) {
      event.preventDefault();
      useToken($('token').value.trim());
    });
    $('forget').addEventListener('click', function () {
      $('token').value = '';
      useToken('');
      $('token').focus();
    });
    $('params-form').addEventListener('submit', function (event) {
      event.preventDefault();
      run(formParams(), false);
    });
    $('older').addEventListener('click', older);
    $('copy').addEventListener('click', function () {
      var input = $('curl');
      input.select();
      if (navigator.clipboard) navigator.clipboard.writeText(input.value).catch(function () {});
    });
    var saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) {
      $('token').value = saved;
      useToken(saved);
    }
  });
})();
