/* The graveyard page's script (report/page.h, docs/page.md).
 *
 * It draws what the grader computed and computes nothing itself: each
 * cell's facts (right, dead, ghost, tombstone, rose again, cut off,
 * looped, error) and the overlay grid come in the data block. Filtering
 * and sorting only choose which columns to show. Every string from the
 * rows is put on the page with textContent, never as markup. */
'use strict';
(function () {
/* The data block is JSON, or (the default: a page a fifth of the size, read
 * by the browser three times as fast) that JSON gzipped and in base64,
 * unpacked here with the browser's own DecompressionStream. */
function load() {
  var plain = document.getElementById('gy-data');
  if (plain) return Promise.resolve(plain.textContent);
  var z = document.getElementById('gy-z');
  if (typeof DecompressionStream === 'undefined')
    return Promise.reject(new Error('this browser has no DecompressionStream: open the page in a current browser'));
  var b = atob(z.textContent), bytes = new Uint8Array(b.length);
  for (var i = 0; i < b.length; i++) bytes[i] = b.charCodeAt(i);
  var s = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(s).text();
}
load().then(function (text) { start(JSON.parse(text)); }, function (e) {
  var p = document.createElement('p');
  p.className = 'note';
  p.textContent = 'The grid cannot be shown: ' + e.message + '. The report below does not need it.';
  document.getElementById('app').appendChild(p);
});

function start(D) {
  /* for scripts that read the page (the browser test does) */
  window.graveyardData = D;
  var T = D.T;
  var NQ = D.ids.length, NR = D.rows.length, NRUN = D.runs.length;
  /* bury.h's enum grader_cell_fact */
  var ANS = 1, RIGHT = 2, DEAD = 4, GHOST = 8, TOMB = 16, ROSE = 32,
      CUT = 64, LOOP = 128, ERR = 256, EMPTY = 512, THOUGHT = 1024;
  var FILTERS = [
    ['all', 'all questions', 0], ['tomb', 'tombstones', TOMB],
    ['ghost', 'ghosts', GHOST], ['dead', 'dead', DEAD],
    ['cut', 'cut off', CUT], ['loop', 'looped', LOOP], ['error', 'errors', ERR]
  ];
  if (NRUN > 1) FILTERS.push(['split', 'runs disagree', -1]);
  var FOLD = 4000; /* characters of a reply shown before "show the rest" */
  /* the split figures (docs/page.md, "Where it split"): the grid's KLD
   * shading per row, and the dead cells that split, by row and question */
  var PK = D.pk || null, SPLIT = {};
  if (PK) PK.cells.forEach(function (c) { SPLIT[c.r * NQ + c.q] = c; });
  function kldLevel(row, q) {
    return PK && row < PK.kl.length ? PK.kl[row].charCodeAt(q) - 48 : 0;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function str(i) { return i >= 0 ? T[i] : null; }
  function cellCode(row, q) { return D.g[row].charCodeAt(q) - 97; }
  function facts(run, row, q) { return D.runs[run].r[row].c[q]; }
  function rowIndex(name) {
    for (var i = 0; i < NR; i++) if (D.rows[i].name === name) return i;
    return -1;
  }
  function qIndex(id) {
    for (var q = 0; q < NQ; q++) if (D.ids[q] === id) return q;
    return -1;
  }

  /* ---- the words for a cell ------------------------------------------ */
  function said(run, row, q) {
    var r = D.runs[run].r[row], s = str(r.s[q]);
    if (s === null && r.oc && str(r.oc[q]) === 'no_code') return 'no code';
    return s === null ? 'no number' : s;
  }
  /* The status words of one cell: the grader's facts, spelt out. */
  function status(run, row, q) {
    var f = facts(run, row, q), w = [];
    if (!(f & ANS)) return ['no row'];
    w.push(f & RIGHT ? 'right' : 'wrong');
    if (f & TOMB) w.push('\u2020 dead, first death (tombstone)');
    else if (f & DEAD) w.push('\u2020 dead');
    if (f & GHOST) w.push('ghost');
    if (f & ROSE) w.push('\u2191 right again');
    if (f & CUT) w.push('cut off');
    if (f & LOOP) w.push('looped');
    if (f & ERR) w.push('error');
    if (f & EMPTY) w.push('empty content');
    if (f & THOUGHT) w.push('wrote in the thinking block');
    return w;
  }
  function finish(run, row, q) {
    var r = D.runs[run].r[row], fr = str(r.fr[q]), k = r.k[q];
    return 'finish: ' + (fr === null ? 'none' : fr) +
      (k >= 0 ? ' \u00b7 ' + k.toLocaleString('en-US') + ' tokens' : '');
  }

  /* ---- state and the URL fragment ------------------------------------ */
  var S = { f: 'all', r: '', s: 'order', q: -1, at: 0, run: 0 };
  var cols = [], colPos = new Int32Array(NQ), active = { row: 0, pos: 0 };

  function readHash() {
    var h = location.hash.replace(/^#/, ''), out = {};
    h.split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) {
        try { out[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); }
        catch (e) { /* a mangled fragment is ignored, not fatal */ }
      }
    });
    var f = FILTERS.some(function (x) { return x[0] === out.f; }) ? out.f : 'all';
    S.f = f;
    S.r = out.r && rowIndex(out.r) >= 0 ? out.r : '';
    S.s = out.s === 'death' ? 'death' : 'order';
    S.run = Math.min(Math.max(parseInt(out.run || '0', 10) || 0, 0), NRUN - 1);
    S.q = out.q ? qIndex(out.q) : -1;
    S.at = out.at && rowIndex(out.at) >= 0 ? rowIndex(out.at) : 0;
  }
  function writeHash() {
    var parts = [];
    if (S.f !== 'all') parts.push('f=' + S.f);
    if (S.r) parts.push('r=' + encodeURIComponent(S.r));
    if (S.s !== 'order') parts.push('s=' + S.s);
    if (S.q >= 0) {
      parts.push('q=' + encodeURIComponent(D.ids[S.q]));
      parts.push('at=' + encodeURIComponent(D.rows[S.at].name));
      if (S.run) parts.push('run=' + S.run);
    }
    var h = parts.length ? '#' + parts.join('&') : '';
    if (h !== location.hash && !(h === '' && location.hash === '#'))
      history.replaceState(null, '', h || location.pathname + location.search);
  }

  /* ---- which columns ------------------------------------------------- */
  function matches(q) {
    if (S.f === 'all') return true;
    var bit = 0, i, k, lo = 0, hi = NR;
    FILTERS.forEach(function (x) { if (x[0] === S.f) bit = x[2]; });
    if (S.r) { lo = rowIndex(S.r); hi = lo + 1; }
    for (i = lo; i < hi; i++) {
      if (bit < 0) { if (((cellCode(i, q) / 3) | 0) === 3) return true; continue; }
      for (k = 0; k < NRUN; k++) if (facts(k, i, q) & bit) return true;
    }
    return false;
  }
  function deathRow(q) {
    for (var k = 0; k < NRUN; k++)
      for (var i = 0; i < NR; i++) if (facts(k, i, q) & TOMB) return i;
    return NR;
  }
  function chooseColumns() {
    cols = D.order.filter(matches);
    if (S.s === 'death') {
      var key = {};
      cols.forEach(function (q, j) { key[q] = deathRow(q) * 1e7 + j; });
      cols.sort(function (a, b) { return key[a] - key[b]; });
    }
    colPos.fill(-1);
    cols.forEach(function (q, j) { colPos[q] = j; });
  }

  /* ---- the grid ------------------------------------------------------ */
  var app = document.getElementById('app'), grid, tip, panel, countEl;
  var bandSize = 1, bands = [];

  function sizeGrid() {
    var avail = Math.max(grid.clientWidth - 96, 120), n = Math.max(cols.length, 1);
    var cw = Math.floor(avail / n), ch = NR > 14 ? 11 : 14;
    if (cw >= 4) { bandSize = n; cw = Math.min(cw, 22); }
    else { cw = 4; bandSize = Math.floor(avail / cw); }
    grid.style.setProperty('--cw', cw + 'px');
    grid.style.setProperty('--ch', ch + 'px');
    grid.classList.toggle('gap', cw >= 6);
  }
  function drawGrid() {
    sizeGrid();
    var html = [], b, i, j, q, c, nb = Math.max(Math.ceil(cols.length / bandSize), 1);
    for (b = 0; b < nb; b++) {
      html.push('<div class="band">');
      for (i = 0; i < NR; i++) {
        if (D.rows[i].side && (i === 0 || !D.rows[i - 1].side))
          html.push('<div class="sep">beside the ladder</div>');
        html.push('<div class="row' + (D.rows[i].side ? ' side' : '') +
          '" data-row="' + i + '"><span class="lab"></span><div class="cells">');
        for (j = b * bandSize; j < Math.min((b + 1) * bandSize, cols.length); j++) {
          q = cols[j]; c = cellCode(i, q);
          var kl = kldLevel(i, q);
          html.push('<i class="c' + (c / 3 | 0) + (c % 3 ? ' m' + c % 3 : '') +
            (kl ? ' k k' + kl : '') + '" data-q="' + q + '" tabindex="-1"></i>');
        }
        html.push('</div></div>');
      }
      html.push('</div>');
    }
    grid.innerHTML = html.join('');
    bands = grid.querySelectorAll('.band');
    /* names are text: set after the markup, never inside it */
    grid.querySelectorAll('.row').forEach(function (r) {
      var row = D.rows[+r.dataset.row], name = row.name, lab = r.firstChild;
      var v = verdictMark(row.verdict);
      lab.textContent = '';
      /* the verdict before the name, so a long name's ellipsis never
         hides it: a glyph and a colour, the words in the title */
      if (v) lab.appendChild(el('b', 'vm ' + v[1], v[0]));
      lab.appendChild(document.createTextNode(name));
      lab.title = name + (row.verdict ? ': ' + row.verdict : '');
    });
    countEl.textContent = cols.length.toLocaleString('en-US') + ' of ' +
      NQ.toLocaleString('en-US') + ' questions';
    active.pos = Math.min(active.pos, Math.max(cols.length - 1, 0));
    var a = cellAt(active.row, active.pos);
    if (a) a.tabIndex = 0;
    markSelected();
  }
  function cellAt(row, pos) {
    if (pos < 0 || pos >= cols.length) return null;
    var band = bands[Math.floor(pos / bandSize)];
    var r = band && band.querySelector('.row[data-row="' + row + '"]');
    return r ? r.lastChild.children[pos % bandSize] : null;
  }
  function where(cell) {
    return { row: +cell.parentNode.parentNode.dataset.row, q: +cell.dataset.q };
  }
  function markSelected() {
    var old = grid.querySelector('i.sel');
    if (old) old.classList.remove('sel');
    if (S.q >= 0 && colPos[S.q] >= 0) {
      var c = cellAt(S.at, colPos[S.q]);
      if (c) c.classList.add('sel');
    }
  }

  /* ---- the tooltip --------------------------------------------------- */
  function showTip(cell) {
    var w = where(cell), run = S.run, lines = [];
    tip.textContent = '';
    var head = el('div');
    head.appendChild(el('b', null, D.ids[w.q]));
    head.appendChild(document.createTextNode(' \u00b7 ' + D.rows[w.row].name +
      (NRUN > 1 ? ' \u00b7 ' + D.runs[run].label : '')));
    tip.appendChild(head);
    if (facts(run, w.row, w.q) & ANS) {
      lines.push('reference ' + D.refs[w.q] + ' \u00b7 said ' + said(run, w.row, w.q));
      lines.push(finish(run, w.row, w.q));
    } else {
      lines.push('reference ' + D.refs[w.q] + ' \u00b7 not answered yet');
    }
    if (PK && w.row < PK.kld.length && PK.kld[w.row][w.q] !== null)
      lines.push('mean KLD from ' + D.rows[0].name + ' ' + fig(PK.kld[w.row][w.q], 4));
    if (D.rows[w.row].verdict)
      lines.push(D.rows[w.row].name + ' against ' + D.rows[0].name + ': ' + D.rows[w.row].verdict);
    lines.forEach(function (t) { tip.appendChild(el('div', null, t)); });
    tip.appendChild(el('span', 'st', status(run, w.row, w.q).join(' \u00b7 ')));
    if (NRUN > 1) {
      var per = [];
      for (var k = 0; k < NRUN; k++)
        per.push(D.runs[k].label + ': ' + said(k, w.row, w.q) +
          (facts(k, w.row, w.q) & RIGHT ? ' \u2713' : ' \u2717'));
      tip.appendChild(el('span', 'st', per.join(' \u00b7 ')));
    }
    tip.classList.remove('hidden');
    var r = cell.getBoundingClientRect(), tw = tip.offsetWidth, th = tip.offsetHeight;
    var x = Math.min(Math.max(r.left + r.width / 2 - tw / 2, 4), innerWidth - tw - 4);
    var y = r.top - th - 8;
    if (y < 4) y = r.bottom + 8;
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  function hideTip() { tip.classList.add('hidden'); }

  /* ---- the panel ----------------------------------------------------- */
  function folded(text, cls) {
    var box = el('div'), pre = el('pre', 'text' + (cls ? ' ' + cls : ''));
    if (text.length > FOLD) {
      pre.textContent = text.slice(0, FOLD);
      var more = el('button', 'more', 'show the rest (' +
        (text.length - FOLD).toLocaleString('en-US') + ' more characters)');
      more.type = 'button';
      more.addEventListener('click', function () {
        pre.textContent = text; more.remove();
      });
      box.appendChild(pre); box.appendChild(more);
    } else {
      pre.textContent = text;
      box.appendChild(pre);
    }
    return box;
  }
  function chip(run, row, q) {
    var f = facts(run, row, q), c = cellCode(row, q);
    var b = el('button', 'chip');
    b.type = 'button';
    b.classList.add('c' + (f & ANS ? (f & RIGHT ? 1 : 2) : 0));
    if (f & DEAD) b.classList.add('m1');
    if (f & GHOST) b.classList.add('m2');
    b.appendChild(el('b', null, D.rows[row].name));
    b.appendChild(el('span', 'said', (f & RIGHT ? '\u2713 ' : f & ANS ? '\u2717 ' : '') +
      said(run, row, q)));
    var w = [];
    if (f & TOMB) w.push('\u2020 died here');
    else if (f & DEAD) w.push('\u2020 dead');
    if (f & ROSE) w.push('\u2191 right again');
    if (f & GHOST) w.push('ghost');
    if (f & CUT) w.push('cut off');
    if (f & LOOP) w.push('looped');
    if (f & ERR) w.push('error');
    b.appendChild(el('span', 'w', w.join(', ') || '\u00a0'));
    b.dataset.run = run; b.dataset.row = row; b.dataset.cell = c;
    if (run === S.run && row === S.at) b.classList.add('on');
    b.addEventListener('click', function () {
      S.run = run; S.at = row; writeHash(); openPanel(false);
    });
    return b;
  }
  /* ---- where a dead answer split from the reference's ---------------- */
  function fig(v, d) {
    return v === null ? '\u2014' : (v < 0 ? '\u2212' : '') + Math.abs(v).toFixed(d);
  }
  /* one top-N list at the split: a bar a token, its length the
   * probability exp(logprob); the chosen token and the other side's marked */
  function bars(title, list, chosen, other, margin) {
    var box = el('div', 'topn');
    box.appendChild(el('h4', null, title));
    list.forEach(function (t) {
      var p = t[1] === null ? 0 : Math.exp(t[1]), row = el('div', 'brow');
      if (t[0] === chosen) row.classList.add('chosen');
      if (t[0] === other) row.classList.add('other');
      row.appendChild(el('code', 'btok', t[2]));
      var track = el('span', 'btrack'), fill = el('span', 'bfill');
      /* the CSSOM, not a style attribute: the CSP allows no inline style */
      fill.style.width = (Math.max(Math.min(p, 1), 0) * 100).toFixed(1) + '%';
      track.appendChild(fill);
      row.appendChild(track);
      row.appendChild(el('span', 'bp', (p * 100).toFixed(1) + ' %'));
      row.title = 'token ' + t[0] + ' \u00b7 log-probability ' + fig(t[1], 3);
      box.appendChild(row);
    });
    box.appendChild(el('p', 'meta', 'margin ' + fig(margin, 2) +
      ' (top-1 minus top-2 log-probability)'));
    return box;
  }
  function splitView(row, q) {
    var c = SPLIT[row * NQ + q], ref = D.rows[0].name, name = D.rows[row].name;
    if (!c) return null;
    var box = el('div', 'split');
    box.appendChild(el('h3', null, 'Where it split from ' + ref));
    box.appendChild(el('p', 'meta', 'at token ' + (c.sp + 1).toLocaleString('en-US') + ' of ' +
      ref + '\u2019s ' + c.rn.toLocaleString('en-US') + ' (' + name + ' wrote ' +
      c.qn.toLocaleString('en-US') + ') \u00b7 KLD there ' + fig(c.ks, 3) +
      ' \u00b7 mean ' + fig(c.km, 4) + ', max ' + fig(c.kx, 3) + ' over the ' +
      c.pf.toLocaleString('en-US') + ' tokens of the shared prefix, the split included \u00b7 ' +
      name + '\u2019s log-probability of ' + ref + '\u2019s token: ' +
      (c.lp === null ? 'not in its top ' + PK.n : fig(c.lp, 3))));
    var pre = el('pre', 'text splittext');
    pre.appendChild(document.createTextNode(c.b));
    var mine = el('mark', 'tok', c.qt[2]);
    mine.title = name + ' chose this token';
    pre.appendChild(mine);
    var theirs = el('span', 'tok ref', c.rt[2]);
    theirs.title = ref + ' chose this token';
    pre.appendChild(theirs);
    box.appendChild(pre);
    box.appendChild(el('p', 'meta', 'The reply as both wrote it up to the split, then ' + name +
      '\u2019s token, marked, and ' + ref + '\u2019s beside it. Below, the top ' + PK.n +
      ' of each at that token: bars of probability, ' + name + '\u2019s choice dark, the other\u2019s marigold.'));
    var two = el('div', 'tops');
    two.appendChild(bars(ref + '\u2019s top ' + PK.n, c.ra, c.rt[0], c.qt[0], c.rm));
    two.appendChild(bars(name + '\u2019s top ' + PK.n, c.qa, c.qt[0], c.rt[0], c.qm));
    box.appendChild(two);
    return box;
  }
  /* a tool item's calls (docs/toolcalls.md): undefined when the rung
   * answered no tool item, null when its row keeps none, else the list */
  function callsOf(run, row, q) {
    var rr = D.runs[run].r[row];
    if (!rr.tc) return undefined;
    var t = str(rr.tc[q]), a = null;
    if (t === null) return null;
    try { a = JSON.parse(t); } catch (e) { return null; }
    return Array.isArray(a) ? a : null;
  }
  function argsOf(c) {
    var o = null;
    try { o = JSON.parse(c.arguments); } catch (e) { return null; }
    return o !== null && typeof o === 'object' && !Array.isArray(o) ? o : null;
  }
  /* the rung's calls beside the reference's, call by call and argument
   * by argument; a name or an argument that differs is marked */
  function callsView(run, row, q) {
    var mine = callsOf(run, row, q);
    if (mine === undefined) return null;
    var theirs = row > 0 ? callsOf(run, 0, q) : null, rr = D.runs[run].r[row];
    var b = rr.b ? str(rr.b[q]) : null, box = el('div', 'calls');
    box.appendChild(el('h4', null, 'Tool calls' + (b ? ' \u00b7 ' + b.replace(/_/g, ' ') : '')));
    var n = Math.max(mine ? mine.length : 0, theirs ? theirs.length : 0), i;
    if (!mine || !mine.length)
      box.appendChild(el('p', 'note', mine ? 'no call' : 'calls: none kept'));
    if (!n) return box;
    var tbl = el('table', 'calls'), hr = el('tr');
    hr.appendChild(el('th'));
    hr.appendChild(el('th', null, D.rows[row].name));
    if (row > 0) hr.appendChild(el('th', null, D.rows[0].name));
    tbl.appendChild(hr);
    function line(head, a, t, differ) {
      var tr = el('tr'), x = el('td', differ ? 'diff' : null, a);
      tr.appendChild(el('th', null, head));
      tr.appendChild(x);
      if (row > 0) tr.appendChild(el('td', null, t));
      if (differ) x.title = 'differs from ' + D.rows[0].name;
      tbl.appendChild(tr);
    }
    /* pairs: each of the rung's calls beside the reference's first
     * unused call of its name (parallel calls are a set: order is no
     * difference), then each by position, then the reference's left */
    var pairs = [], used = [], j;
    (mine || []).forEach(function (c) {
      var at = -1;
      for (j = 0; theirs && j < theirs.length && at < 0; j++)
        if (!used[j] && theirs[j].name === c.name) at = j;
      if (at >= 0) used[at] = 1;
      pairs.push([c, at]);
    });
    pairs.forEach(function (pr) {
      for (j = 0; pr[1] < 0 && theirs && j < theirs.length; j++)
        if (!used[j]) { used[j] = 1; pr[1] = j; }
    });
    for (j = 0; theirs && j < theirs.length; j++) if (!used[j]) pairs.push([null, j]);
    n = pairs.length;
    for (i = 0; i < n; i++) {
      var m = pairs[i][0], t = pairs[i][1] >= 0 ? theirs[pairs[i][1]] : null;
      var ma = m ? argsOf(m) : null, ta = t ? argsOf(t) : null, keys = [], k;
      line('call ' + (i + 1), m ? m.name : '\u2014', t ? t.name : '\u2014',
        row > 0 && (!m || !t || m.name !== t.name));
      if (m && !ma) line('arguments', String(m.arguments), t ? String(t.arguments) : '\u2014', row > 0);
      if (ma) for (k in ma) if (keys.indexOf(k) < 0) keys.push(k);
      if (ta && ma) for (k in ta) if (keys.indexOf(k) < 0) keys.push(k);
      keys.forEach(function (key) {
        var a = ma && key in ma ? JSON.stringify(ma[key]) : '\u2014';
        var z = ta && key in ta ? JSON.stringify(ta[key]) : '\u2014';
        line('\u00a0\u00a0' + key, a, z, row > 0 && a !== z);
      });
    }
    var w = el('div', 'tw');
    w.appendChild(tbl);
    box.appendChild(w);
    return box;
  }
  /* a code item's run (docs/code.md): the outcome's words, the code
   * that ran beside the reference rung's, what it printed. null for a
   * rung that ran no code item, or a row with no outcome (an error) */
  var CODE_LINES = 1000; /* lines of each code compared as a sequence */
  function codeLines(code) {
    var l = code.split('\n');
    if (l.length > 1 && l[l.length - 1] === '') l.pop();
    return l;
  }
  /* which of a's lines are not in b (a longest common subsequence of
   * lines; past CODE_LINES lines, line by line at the same place) */
  function linesDiffer(a, b) {
    var n = a.length, m = b.length, out = [], i, j;
    if (n > CODE_LINES || m > CODE_LINES) {
      for (i = 0; i < n; i++) out.push(i >= m || a[i] !== b[i]);
      return out;
    }
    var L = [], z;
    for (i = 0; i <= n; i++) {
      for (z = [], j = 0; j <= m; j++) z.push(0);
      L.push(z);
    }
    for (i = n - 1; i >= 0; i--)
      for (j = m - 1; j >= 0; j--)
        L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    for (i = 0; i < n; i++) out.push(true);
    for (i = 0, j = 0; i < n && j < m;) {
      if (a[i] === b[j]) { out[i] = false; i++; j++; }
      else if (L[i + 1][j] >= L[i][j + 1]) i++;
      else j++;
    }
    return out;
  }
  function codeColumn(name, lines, differ, ref) {
    var col = el('div', 'col'), pre = el('pre', 'src');
    col.appendChild(el('div', 'head', name));
    lines.forEach(function (t, i) {
      var s = el('span', differ && differ[i] ? 'diff' : null, t);
      if (differ && differ[i]) s.title = 'not in ' + ref + '\u2019s code';
      pre.appendChild(s);
    });
    col.appendChild(pre);
    return col;
  }
  function codeView(run, row, q) {
    var rr = D.runs[run].r[row];
    if (!rr.oc) return null;
    var oc = str(rr.oc[q]);
    if (oc === null) return null;
    var s = str(rr.s[q]), box = el('div', 'code');
    /* the grader's words ("failed 3/5", "error TypeError 0/5") without
     * the code's hash; the outcome's name when it said none */
    var words = s !== null ? s.replace(/ code:[0-9a-f]*$/, '') : oc.replace(/_/g, ' ');
    box.appendChild(el('h4', null, 'Code \u00b7 ' + words));
    var mine = str(rr.cd[q]), r0 = D.runs[run].r[0];
    var theirs = row > 0 && r0.cd ? str(r0.cd[q]) : null;
    if (oc === 'no_code') box.appendChild(el('p', 'note', 'no code in the reply'));
    else if (mine === null) box.appendChild(el('p', 'note', 'code: none kept'));
    if (mine !== null) {
      var cols = el('div', 'cols' + (theirs !== null ? ' two' : ''));
      var a = codeLines(mine), b = theirs !== null ? codeLines(theirs) : null;
      cols.appendChild(codeColumn(D.rows[row].name, a, b ? linesDiffer(a, b) : null,
        D.rows[0].name));
      if (b) cols.appendChild(codeColumn(D.rows[0].name + ', the reference', b, null));
      box.appendChild(cols);
      if (row > 0 && r0.oc && theirs === null)
        box.appendChild(el('p', 'note', D.rows[0].name + ', the reference, ran no code here'));
    }
    var out = rr.o ? str(rr.o[q]) : null;
    if (out !== null && out.length) {
      box.appendChild(el('div', 'outhead', 'what it printed'));
      box.appendChild(folded(out, 'out'));
    }
    return box;
  }
  function openPanel(focus) {
    var q = S.q, run = S.run, row = S.at;
    if (q < 0) { closePanel(); return; }
    panel.textContent = '';
    var x = el('button', 'close', '\u00d7');
    x.type = 'button'; x.setAttribute('aria-label', 'close');
    x.addEventListener('click', function () { closePanel(); });
    panel.appendChild(x);
    panel.appendChild(el('h2', null, D.ids[q] + ' \u00b7 answer ' + D.refs[q]));
    var qt = str(D.qt[q]);
    panel.appendChild(qt !== null ? el('p', 'qtext', qt)
      : el('p', 'note', 'The question text is not available: ' + (D.qnote || 'no question file.')));
    /* the strip: this question's answer at every rung, on every run (one
     * run: chips that wrap; several: a table, a row a run) */
    var i, k, strip;
    if (NRUN === 1) {
      strip = el('div', 'strip one');
      for (i = 0; i < NR; i++) strip.appendChild(chip(0, i, q));
    } else {
      var tbl = el('table', 'strip');
      for (k = 0; k < NRUN; k++) {
        var tr = el('tr');
        tr.appendChild(el('th', null, D.runs[k].label));
        for (i = 0; i < NR; i++) {
          var td = el('td');
          td.appendChild(chip(k, i, q));
          tr.appendChild(td);
        }
        tbl.appendChild(tr);
      }
      strip = el('div', 'tw'); strip.appendChild(tbl);
    }
    panel.appendChild(strip);
    /* the chosen rung's reply */
    var r = D.runs[run].r[row], box = el('div', 'reply');
    box.appendChild(el('h3', null, D.rows[row].name + (NRUN > 1 ? ' on ' + D.runs[run].label : '') + ': the reply'));
    if (D.rows[row].verdict)
      box.appendChild(el('p', 'meta', 'the rung: ' + D.rows[row].verdict + ' against ' + D.rows[0].name));
    if (facts(run, row, q) & ANS)
      box.appendChild(el('p', 'meta', 'said ' + said(run, row, q) + ' \u00b7 ' +
        finish(run, row, q) + ' \u00b7 ' + status(run, row, q).join(', ')));
    var err = str(r.e[q]), content = str(r.x[q]), reasoning = str(r.y[q]);
    if (err !== null) { box.appendChild(el('h4', null, 'Error')); box.appendChild(folded(err, 'err')); }
    if (!(facts(run, row, q) & ANS)) box.appendChild(el('p', 'note', 'This rung has no row for the question.'));
    else if (content === null) box.appendChild(el('p', 'note', 'content: null' +
      (callsOf(run, row, q) && callsOf(run, row, q).length ? ' (the reply is its calls, below)' : '')));
    else if (content.length === 0) box.appendChild(el('p', 'note', 'content: empty'));
    else box.appendChild(folded(content));
    if (reasoning !== null) box.appendChild(thinkingBlock(reasoning));
    var cv = callsView(run, row, q) || codeView(run, row, q);
    if (cv) box.appendChild(cv);
    var sv = PK && run === 0 ? splitView(row, q) : null;
    if (sv) box.appendChild(sv);
    panel.appendChild(box);
    panel.classList.remove('hidden');
    markSelected();
    if (focus) x.focus();
  }
  /* what gets the focus back when the panel closes: the grid's active
   * cell, or the link that opened it (a duel's question) */
  var returnTo = null;
  function closePanel() {
    var was = !panel.classList.contains('hidden'), back = returnTo;
    panel.classList.add('hidden');
    returnTo = null;
    S.q = -1; writeHash(); markSelected();
    if (was && back) back.focus();
    else if (was) { var a = cellAt(active.row, active.pos); if (a) a.focus(); }
  }
  function open(row, q, focus) {
    S.q = q; S.at = row; writeHash(); openPanel(focus);
  }

  /* ---- the duels (docs/page.md, "Duels") ----------------------------
   * Two rungs against each other directly (a ladder config's "duels"):
   * the questions where one was right and the other wrong, by the cells'
   * facts (the grader's right bit, on the first run), both replies side
   * by side. A filter, as the grid's: nothing counted that the grader
   * did not mark. */
  var DUELS = D.duels || [];
  function duelQuestions(d) {
    var a = [], b = [], both = [];
    D.order.forEach(function (q) {
      var fa = facts(0, d.a, q), fb = facts(0, d.b, q);
      if (!(fa & ANS) || !(fb & ANS) || !(fa & RIGHT) === !(fb & RIGHT)) return;
      (fa & RIGHT ? a : b).push(q);
      both.push(q);
    });
    return { a: a, b: b, both: both };
  }
  /* a reply's thinking block, folded under its length */
  function thinkingBlock(reasoning) {
    var d = el('details');
    d.appendChild(el('summary', null, 'thinking block (' +
      reasoning.length.toLocaleString('en-US') + ' characters)'));
    d.appendChild(folded(reasoning));
    return d;
  }
  function duelReply(row, q, right) {
    var r = D.runs[0].r[row], box = el('div', 'side ' + (right ? 'won' : 'lost'));
    var who = el('div', 'who');
    who.appendChild(el('b', 'mark', right ? '\u2713 right' : '\u2717 wrong'));
    who.appendChild(el('span', 'name', D.rows[row].name));
    who.appendChild(el('span', 'said', 'said ' + said(0, row, q)));
    box.appendChild(who);
    box.appendChild(el('p', 'meta', finish(0, row, q)));
    var err = str(r.e[q]), content = str(r.x[q]), reasoning = str(r.y[q]);
    if (err !== null) box.appendChild(folded(err, 'err'));
    if (content === null) box.appendChild(el('p', 'note', 'content: null'));
    else if (content.length === 0) box.appendChild(el('p', 'note', 'content: empty'));
    else box.appendChild(folded(content));
    if (reasoning !== null) box.appendChild(thinkingBlock(reasoning));
    /* a tool-call or code ladder's duel: its calls, or the code that ran */
    var cv = callsView(0, row, q) || codeView(0, row, q);
    if (cv) box.appendChild(cv);
    return box;
  }
  function duelItem(d, q) {
    var li = el('li', 'dq'), h = el('div', 'dqh'), link = el('a', null, D.ids[q]);
    /* an attribute, not markup: the id percent-encoded as the grid's links */
    link.href = '#q=' + encodeURIComponent(D.ids[q]) + '&at=' + encodeURIComponent(D.rows[d.a].name);
    link.title = 'open its answers';
    /* the panel over the list, the place in it kept (the fragment's own
       way scrolls to the grid); a modified click still opens a tab */
    link.addEventListener('click', function (e) {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button) return;
      e.preventDefault();
      open(d.a, q, true);
      returnTo = link;
    });
    h.appendChild(link);
    h.appendChild(document.createTextNode(' \u00b7 answer ' + D.refs[q]));
    li.appendChild(h);
    var qt = str(D.qt[q]);
    li.appendChild(qt !== null ? el('p', 'qtext', qt) : el('p', 'note', 'The question text is not available.'));
    var pair = el('div', 'pair'), ra = facts(0, d.a, q) & RIGHT;
    pair.appendChild(duelReply(d.a, q, ra));
    pair.appendChild(duelReply(d.b, q, !ra));
    li.appendChild(pair);
    li.dataset.q = q;
    return li;
  }
  function duelBody(box, d) {
    var A = D.rows[d.a].name, B = D.rows[d.b].name, found = duelQuestions(d);
    box.textContent = '';
    /* one duel: its name as a heading; several: the tabs name them */
    if (DUELS.length === 1) box.appendChild(el('h3', null, A + ' against ' + B));
    var head = el('p', 'dhead');
    /* the grader's counts in words when the caller gave them; else how
       many questions the list holds each way */
    head.appendChild(el('span', 'dcount', d.n !== null && d.n !== undefined ? d.n :
      A + ' right only: ' + found.a.length + ' \u00b7 ' + B + ' right only: ' + found.b.length));
    if (d.v !== null && d.v !== undefined) head.appendChild(el('span', 'dverdict', d.v));
    box.appendChild(head);
    var bar = el('div', 'dbar'), list = el('ol', 'dlist'), n = el('span', 'dn');
    var sel = select('Show', '', [['both', 'both ways'], ['a', A + ' right only'],
      ['b', B + ' right only']], 'both', draw);
    bar.appendChild(sel); bar.appendChild(n);
    box.appendChild(bar);
    box.appendChild(list);
    function draw(way) {
      var qs = found[way];
      list.textContent = '';
      qs.forEach(function (q) { list.appendChild(duelItem(d, q)); });
      n.textContent = qs.length.toLocaleString('en-US') + (qs.length === 1 ? ' question' : ' questions');
      if (!qs.length) list.appendChild(el('li', 'note', found.a.length + found.b.length ?
        'none this way' : 'They agree on every question both answered.'));
    }
    draw('both');
  }
  function duelsView() {
    if (!DUELS.length) return null;
    var sec = el('section'), body = el('div', 'duel');
    sec.id = 'duels';
    sec.appendChild(el('h2', null, 'Duels, reply by reply'));
    sec.appendChild(el('p', 'note', 'Two rungs against each other directly (the ladder\u2019s "duels"): ' +
      'the questions one got right and the other wrong, both replies side by side.'));
    if (DUELS.length > 1) {
      var tabs = el('div', 'tabs');
      tabs.setAttribute('role', 'tablist');
      DUELS.forEach(function (d, i) {
        var t = el('button', 'tab', D.rows[d.a].name + ' against ' + D.rows[d.b].name);
        t.type = 'button'; t.setAttribute('role', 'tab');
        t.setAttribute('aria-selected', String(i === 0));
        t.addEventListener('click', function () {
          tabs.querySelectorAll('.tab').forEach(function (x) { x.setAttribute('aria-selected', 'false'); });
          t.setAttribute('aria-selected', 'true');
          duelBody(body, d);
        });
        tabs.appendChild(t);
      });
      sec.appendChild(tabs);
    }
    sec.appendChild(body);
    duelBody(body, DUELS[0]);
    return sec;
  }

  /* ---- keyboard ------------------------------------------------------ */
  function moveTo(row, pos) {
    if (!cols.length) return;
    row = Math.min(Math.max(row, 0), NR - 1);
    pos = Math.min(Math.max(pos, 0), cols.length - 1);
    var old = cellAt(active.row, active.pos), c = cellAt(row, pos);
    if (!c) return;
    if (old) old.tabIndex = -1;
    active.row = row; active.pos = pos;
    c.tabIndex = 0; c.focus();
  }
  function onKey(e) {
    var t = e.target;
    if (t.tagName !== 'I') return;
    var w = where(t), pos = colPos[w.q], k = e.key;
    if (k === 'ArrowRight') moveTo(w.row, pos + 1);
    else if (k === 'ArrowLeft') moveTo(w.row, pos - 1);
    else if (k === 'ArrowDown') moveTo(w.row + 1, pos);
    else if (k === 'ArrowUp') moveTo(w.row - 1, pos);
    else if (k === 'Home') moveTo(w.row, 0);
    else if (k === 'End') moveTo(w.row, cols.length - 1);
    else if (k === 'Enter' || k === ' ') open(w.row, w.q, false);
    else return;
    e.preventDefault();
  }

  /* ---- controls ------------------------------------------------------ */
  function select(label, id, options, value, onchange) {
    var l = el('label', null, label), s = el('select');
    if (id) s.id = id;
    options.forEach(function (o) {
      var opt = el('option', null, o[1]); opt.value = o[0];
      s.appendChild(opt);
    });
    s.value = value;
    s.addEventListener('change', function () { onchange(s.value); });
    l.appendChild(s);
    return l;
  }
  /* A rung's verdict (report.json's words: "equivalent", "worse, by
     ...", "better, by ...", "cannot tell") as the grid's label shows it:
     [glyph, class], or null for the reference and an unknown word. */
  var VERDICTS = [['equivalent', '\u2248', 'v-eq'], ['worse', '\u25bc', 'v-worse'],
    ['better', '\u25b2', 'v-better'], ['cannot tell', '?', 'v-tell']];
  function verdictMark(words) {
    for (var i = 0; words && i < VERDICTS.length; i++)
      if (words.indexOf(VERDICTS[i][0]) === 0) return [VERDICTS[i][1], VERDICTS[i][2]];
    return null;
  }
  function legend() {
    var lg = el('div', 'legend');
    var items = NRUN > 1
      ? [['c1', 'right on every run'], ['c2', 'wrong on every run'], ['c3', 'runs disagree'], ['c0', 'no row']]
      : [['c1', 'right'], ['c2', 'wrong'], ['c0', 'no row']];
    items.push(['c2 m1', '\u2020 dead: the reference right, this rung wrong (dark hatched cap)']);
    items.push(['c1 m2', 'ghost: the reference wrong, this rung right (pale cap)']);
    if (PK && PK.kl.some(function (r) { return /[1-9]/.test(r); }))
      ['0.001\u20130.01', '0.01\u20130.1', '0.1\u20131', '\u2265 1'].forEach(function (w, i) {
        items.push(['c2 k k' + (i + 1), (i ? '' : 'bottom band: mean KLD from ' + D.rows[0].name + ' ') + w]);
      });
    items.forEach(function (it) {
      var s = el('span'), sw = el('i', 'sw ' + it[0]);
      s.appendChild(sw); s.appendChild(document.createTextNode(it[1]));
      lg.appendChild(s);
    });
    /* the labels' verdict marks, those the ladder has */
    VERDICTS.forEach(function (v) {
      if (!D.rows.some(function (r) { return r.verdict && r.verdict.indexOf(v[0]) === 0; }))
        return;
      var s = el('span');
      s.appendChild(el('b', 'vm ' + v[2], v[1]));
      s.appendChild(document.createTextNode(v[0]));
      lg.appendChild(s);
    });
    return lg;
  }
  function rebuild() {
    chooseColumns(); drawGrid(); writeHash();
  }
  function build() {
    /* the first paint (page.c's picture of the grid) gives way */
    var first = document.getElementById('first');
    if (first) first.parentNode.removeChild(first);
    var bar = el('div', 'bar');
    bar.appendChild(select('Show', 'f', FILTERS, S.f, function (v) { S.f = v; rebuild(); }));
    var rungOpts = [['', 'at any rung']].concat(D.rows.map(function (r) { return [r.name, 'at ' + r.name]; }));
    bar.appendChild(select('', 'r', rungOpts, S.r, function (v) { S.r = v; rebuild(); }));
    bar.appendChild(select('Order', 's', [['order', 'question order'], ['death', 'first death']], S.s,
      function (v) { S.s = v; rebuild(); }));
    countEl = el('span'); countEl.id = 'count';
    bar.appendChild(countEl);
    app.appendChild(bar);
    grid = el('div'); grid.id = 'grid';
    grid.setAttribute('role', 'group');
    grid.setAttribute('aria-label', 'the graveyard: one row per rung, one cell per question; arrows move, Enter opens the answers');
    app.appendChild(grid);
    /* the legend under the grid: a study's nine rungs and a side rung
       stay whole above the fold at 1280 x 800 with the decision block */
    app.appendChild(legend());
    /* the duels, only when the ladder has some: after the report (a
       duel's list can be long, and the report's tables come first), the
       bar's button there */
    var dv = duelsView(), report = document.getElementById('report');
    if (dv) {
      if (report) report.parentNode.insertBefore(dv, report.nextSibling);
      else app.appendChild(dv);
      var go = el('button', 'todu', 'Duels (' + DUELS.length + ') \u2193');
      go.type = 'button';
      /* the section is past the grid's end, where the sticky bar has
         gone with it: nothing covers its top */
      go.addEventListener('click', function () { dv.scrollIntoView({ block: 'start' }); });
      bar.appendChild(go);
    }
    tip = el('div', 'hidden'); tip.id = 'tip'; tip.setAttribute('role', 'tooltip');
    document.body.appendChild(tip);
    panel = el('aside', 'hidden'); panel.id = 'panel';
    panel.setAttribute('role', 'dialog');
    panel.setAttribute('aria-label', 'the answers to one question');
    document.body.appendChild(panel);

    grid.addEventListener('mouseover', function (e) { if (e.target.tagName === 'I') showTip(e.target); });
    grid.addEventListener('mouseleave', hideTip);
    grid.addEventListener('focusin', function (e) {
      if (e.target.tagName !== 'I') return;
      var w = where(e.target), old = cellAt(active.row, active.pos);
      if (old && old !== e.target) old.tabIndex = -1;
      active.row = w.row; active.pos = colPos[w.q];
      e.target.tabIndex = 0;
      showTip(e.target);
      /* a screen reader reads the focused cell as the tooltip says it */
      e.target.setAttribute('aria-label', Array.prototype.map.call(
        tip.children, function (c) { return c.textContent; }).join('; '));
    });
    grid.addEventListener('focusout', hideTip);
    grid.addEventListener('click', function (e) {
      if (e.target.tagName !== 'I') return;
      var w = where(e.target);
      moveTo(w.row, colPos[w.q]);
      open(w.row, w.q, false);
    });
    grid.addEventListener('keydown', onKey);
    document.addEventListener('keydown', function (e) {
      if (e.key === 'Escape' && !panel.classList.contains('hidden')) { closePanel(); e.preventDefault(); }
    });
    window.addEventListener('hashchange', function () {
      readHash(); syncControls(); rebuild();
      if (S.q >= 0) openPanel(false); else closePanel();
      grid.scrollIntoView({ block: 'start' });
    });
    var pending = 0;
    window.addEventListener('resize', function () {
      clearTimeout(pending);
      pending = setTimeout(drawGrid, 150);
    });
  }
  function syncControls() {
    document.getElementById('f').value = S.f;
    document.getElementById('r').value = S.r;
    document.getElementById('s').value = S.s;
  }

  readHash();
  build();
  chooseColumns();
  drawGrid();
  if (S.q >= 0) openPanel(false);
  document.documentElement.setAttribute('data-ready', String(Math.round(performance.now())));
}
})();
