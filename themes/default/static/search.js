/* Search as you type, over our own static index (generator/write/search.py and search_index.py
   write it; nothing but JSON is fetched): the header's box shows the first matching papers in
   a panel under it, the search page (a form with data-page) lists them all, ten at a time.
   One result is one paper (one document per paper), so the count is of papers.
   Keyboard: "/" focuses the header box; ArrowDown/ArrowUp move between the box and the
   results (real focus on real links); Enter opens the focused result, or, in the box, submits
   the form to the search page; Esc closes the panel. Without JavaScript the forms are plain
   GET forms to the search page. Nothing is fetched until a box is focused: then meta.json;
   a query fetches the term shard of each word and the document chunks of the results shown. */
(function () {
  "use strict";
  var engine = null;   // one promise of the loaded index, shared by every form

  // The tokenizer of generator/render/search_tokens.py, character for character (tests/write/test_search.py
  // compares the two): NFKD, no combining marks; the runs of letters and digits (over a hyphen between
  // two), each cut into its parts (CamelCase, HTMLParser, LLMs one part, letters and digits, hyphens),
  // each part lowercased, NFKD, no marks, final sigma as sigma and sharp s as ss; a run of one part is
  // one word, a run of several the whole (its parts joined) and then its parts.
  function words(text) {
    var t = text.normalize("NFKD").replace(/\p{M}+/gu, "");
    return (t.match(/[\p{L}\p{N}]+(?:[-\u2010][\p{L}\p{N}]+)*/gu) || []).map(function (run) {
      var parts = run.match(/[\p{Lu}\p{Lt}]+s(?!\p{Ll})|[\p{Lu}\p{Lt}]+(?!\p{Ll})|[\p{Lu}\p{Lt}]?\p{Ll}+|[\p{Lm}\p{Lo}]+|\p{N}+/gu);
      parts = (parts || []).map(function (p) {
        p = p.toLowerCase().normalize("NFKD").replace(/\u03c2/g, "\u03c3").replace(/\u00df/g, "ss");
        return p.replace(/[^\p{L}\p{N}]+/gu, "");
      }).filter(Boolean);
      return parts.length > 1 ? [parts.join("")].concat(parts) : parts;
    }).filter(function (run) { return run.length; });
  }

  function fetchJSON(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) { throw new Error(r.status + " " + url); }
      return r.json();
    });
  }

  function Index(base, meta) {
    var firsts = meta.shards, cache = new Map();
    function once(url) {
      if (!cache.has(url)) {
        var p = fetchJSON(url);
        p.catch(function () { cache.delete(url); });
        cache.set(url, p);
      }
      return cache.get(url);
    }
    // The shards holding the terms ``word`` begins: the one where it sorts, and the next ones
    // whose first term it begins; more than meta.words of them, and the word matches itself only.
    function where(word) {
      var lo = 0, hi = firsts.length;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (firsts[mid] <= word) { lo = mid + 1; } else { hi = mid; }
      }
      var from = Math.max(0, lo - 1), to = from;
      while (to + 1 < firsts.length && firsts[to + 1].lastIndexOf(word, 0) === 0) { to += 1; }
      return to - from < meta.words ? {from: from, to: to, exact: false} : {from: from, to: from, exact: true};
    }
    // doc id -> score of one word: exact matches above prefix matches, the title above the rest.
    function match(word) {
      if (!firsts.length) { return Promise.resolve(new Map()); }
      var w = where(word), urls = [];
      for (var n = w.from; n <= w.to; n++) { urls.push(base + "t/" + meta.t[n] + ".json"); }
      return Promise.all(urls.map(once)).then(function (shards) {
        var scores = new Map();
        shards.forEach(function (shard) {
          Object.keys(shard).forEach(function (term) {
            var exact = term === word;
            if (!exact && (w.exact || term.lastIndexOf(word, 0) !== 0)) { return; }
            [exact ? 4 : 3, exact ? 2 : 1].forEach(function (score, field) {
              var id = 0;
              shard[term][field].forEach(function (d, i) {
                id = i ? id + d : d;
                if ((scores.get(id) || 0) < score) { scores.set(id, score); }
              });
            });
          });
        });
        return scores;
      });
    }
    // doc id -> score of a run of the query: its word's; a compound's, the better of its whole's
    // (as one word) and its parts' when all of them are found (the least of their scores): so
    // "FlashPrefill" finds "Flash-Prefill" and "flash prefill" as well as "FlashPrefill".
    function matchRun(run) {
      if (run.length === 1) { return match(run[0]); }
      return Promise.all(run.map(match)).then(function (maps) {
        var scores = new Map(maps[0]), parts = maps.slice(1);
        parts.sort(function (a, b) { return a.size - b.size; });
        parts[0].forEach(function (score, id) {
          for (var i = 1; i < parts.length; i++) {
            var s = parts[i].get(id);
            if (s === undefined) { return; }
            score = Math.min(score, s);
          }
          if ((scores.get(id) || 0) < score) { scores.set(id, score); }
        });
        return scores;
      });
    }
    function doc(id) {
      return once(base + "d/" + meta.d[Math.floor(id / meta.chunk)] + ".json").then(function (chunk) {
        var d = chunk[id % meta.chunk];
        return {url: d[0], meta: {title: d[1], authors: d[2], year: d[3], subjects: d[4], by: d[5]}};
      });
    }
    this.search = function (q) {
      var seen = new Set(), runs = words(q).filter(function (run) {
        return !seen.has(run[0]) && seen.add(run[0]);
      });
      if (!runs.length) { return Promise.resolve({results: []}); }
      return Promise.all(runs.map(matchRun)).then(function (maps) {
        maps.sort(function (a, b) { return a.size - b.size; });
        var hits = [];
        maps[0].forEach(function (score, id) {
          for (var i = 1; i < maps.length; i++) {
            var s = maps[i].get(id);
            if (s === undefined) { return; }
            score += s;
          }
          hits.push([score, id]);
        });
        // the best score first; among equal scores the higher id: ids run from the free pages to the newest paper
        hits.sort(function (a, b) { return b[0] - a[0] || b[1] - a[1]; });
        return {results: hits.map(function (h) { return {data: function () { return doc(h[1]); }}; })};
      });
    };
  }

  function load(form) {
    if (!engine) {
      var attr = form.getAttribute("data-index");
      if (!attr) { return Promise.reject(new Error("no search index")); }
      var base = new URL(attr, document.baseURI).href;
      engine = fetchJSON(base + "meta.json").then(function (meta) {
        if (meta.version !== 3) { throw new Error("search index format " + meta.version); }
        return new Index(base, meta);
      });
    }
    return engine;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text) { e.textContent = text; }
    return e;
  }

  // The words of the results, in the site's language: the header's search form carries them
  // (data-results-one/-other, data-all-one/-other, data-none, data-more, data-on-page), with
  // {n}, {q} and {name} where the values go, a count's words in each CLDR plural form of the
  // language (data-results-one, -few, -other ...), the one Intl.PluralRules picks.
  var lang = document.documentElement.lang || "en";
  var labels = document.querySelector("form[data-results-other]");
  function say(key, fallback, values) {
    var text = (labels && labels.getAttribute("data-" + key)) || fallback;
    Object.keys(values || {}).forEach(function (k) { text = text.replace("{" + k + "}", function () { return values[k]; }); });
    return text;
  }
  function counted(key, fallback, n) {
    var form = new Intl.PluralRules(lang).select(n);
    var has = labels && labels.hasAttribute("data-" + key + "-" + form);
    return say(key + "-" + (has ? form : "other"), fallback, {n: n.toLocaleString(lang)});
  }
  function plural(n) { return counted("results", n === 1 ? "{n} result" : "{n} results", n); }

  // One result row: the title (a link to the record on its author's page), then authors,
  // year, subjects and whose page it is on, all as text (never markup from the index).
  function row(data, root) {
    var m = data.meta || {};
    var li = el("li", "hit");
    var a = el("a", "hit-title", m.title || data.url);
    a.href = new URL(m.url || data.url, new URL(root, document.baseURI)).href;
    li.appendChild(a);
    if (m.authors) { li.appendChild(el("span", "hit-authors", m.authors)); }
    var bits = [m.year, m.subjects, m.by ? say("on-page", "on {name}\u2019s page", {name: m.by}) : ""].filter(Boolean);
    if (bits.length) { li.appendChild(el("span", "hit-meta", bits.join(" \u00b7 "))); }
    return li;
  }

  function attach(form) {
    var input = form.querySelector("input[type=search]");
    var panel = document.getElementById(input.getAttribute("aria-controls"));
    var pageSize = parseInt(form.getAttribute("data-page") || "0", 10);   // 0: the header's panel
    var root = form.getAttribute("data-root") || "/";
    var limit = pageSize || 5;
    var current = null;   // the search whose results are shown
    var shown = 0;
    var seq = 0;

    function close() {
      if (pageSize) { return; }
      panel.hidden = true;
      panel.textContent = "";
    }

    function more(list, search, upto) {
      var slice = search.results.slice(shown, upto);
      shown = Math.min(upto, search.results.length);
      return Promise.all(slice.map(function (r) { return r.data(); })).then(function (datas) {
        if (current !== search) { return; }
        datas.forEach(function (d) { list.appendChild(row(d, root)); });
      });
    }

    function render(q, search) {
      current = search;
      shown = 0;
      panel.textContent = "";
      var n = search.results.length;
      var count = el("p", "search-count", n ? plural(n) : say("none", "No results for \u201c{q}\u201d", {q: q}));
      count.setAttribute("role", "status");
      panel.appendChild(count);
      var list = el("ul", "hits");
      panel.appendChild(list);
      panel.hidden = false;
      return more(list, search, limit).then(function () {
        if (current !== search || shown >= n) { return; }
        if (pageSize) {
          var btn = el("button", "search-more", say("more", "Show more results"));
          btn.type = "button";
          btn.addEventListener("click", function () {
            more(list, search, shown + pageSize).then(function () { if (shown >= n) { btn.remove(); } });
          });
          panel.appendChild(btn);
        } else {
          var all = el("a", "search-all", counted("all", n === 1 ? "All {n} result" : "All {n} results", n));
          all.href = form.action + "?q=" + encodeURIComponent(q);
          panel.appendChild(all);
        }
      });
    }

    // A debounce: a word typed fast is one query, not one per prefix ("s", "st" ...), each of
    // which could fetch another term shard. A query of one character is not run at all.
    var timer = 0;
    function run() {
      var q = input.value.trim();
      var mine = ++seq;
      clearTimeout(timer);
      if (q.length < 2) { current = null; close(); return; }
      timer = setTimeout(function () {
        load(form).then(function (pf) { return pf.search(q); }).then(function (search) {
          if (search && mine === seq) { return render(q, search); }
        }).catch(function () { close(); });   // no index (built with --no-search): the form still submits
      }, pageSize ? 0 : 100);
    }

    input.addEventListener("focus", function () { load(form).catch(function () {}); });
    input.addEventListener("input", run);
    form.addEventListener("keydown", function (ev) {
      var links = Array.prototype.slice.call(panel.querySelectorAll("a, button"));
      var at = links.indexOf(document.activeElement);
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        if (panel.hidden || !links.length) { return; }
        ev.preventDefault();
        var next = at + (ev.key === "ArrowDown" ? 1 : -1);
        if (next < 0) { input.focus(); } else { links[Math.min(next, links.length - 1)].focus(); }
      } else if (ev.key === "Escape" && !pageSize && !panel.hidden) {
        ev.preventDefault();
        close();
        input.focus();
      }
    });
    if (!pageSize) {
      document.addEventListener("click", function (ev) { if (!form.contains(ev.target)) { close(); } });
      form.addEventListener("focusout", function (ev) {
        if (ev.relatedTarget && !form.contains(ev.relatedTarget)) { close(); }
      });
    } else {
      var q = new URLSearchParams(window.location.search).get("q");
      if (q) { input.value = q; run(); }
    }
  }

  document.querySelectorAll("form[data-index]").forEach(attach);

  // "/" anywhere but in a text field focuses the header's search box.
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.key !== "/" || ev.ctrlKey || ev.metaKey || ev.altKey || t.isContentEditable ||
        /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) { return; }
    var box = document.getElementById("site-search-q");
    if (box) { ev.preventDefault(); box.focus(); }
  });
})();
