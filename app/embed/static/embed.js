/* citegraph embedded views: draws the graph of a record and what rests on it with the vendored
 * cytoscape, beside the dossier pane. Clicking a node shows its details; clicking a record opens its
 * dossier in the pane; clicking a statement or section scrolls the pane to it when it is shown there.
 * Without the library (or without scripts) the server-rendered list stays in place.
 * Exposes window.citegraphEmbed = {cy, select, openDossier, showInitial} for host pages and tests. */
(function () {
  "use strict";

  var body = document.body;
  var base = body.getAttribute("data-base") || "";
  var data = JSON.parse(document.getElementById("cg-data").textContent);
  var graphBox = document.getElementById("cg-graph");
  var list = document.getElementById("cg-list");
  var details = document.getElementById("cg-details");
  var pane = document.getElementById("cg-pane");
  var paneBody = document.getElementById("cg-pane-body");
  var paneBar = document.getElementById("cg-pane-bar");
  var paneTitle = document.getElementById("cg-pane-title");
  var initial = { nodes: Array.prototype.slice.call(paneBody.childNodes), showing: pane.getAttribute("data-showing") };
  var api = { cy: null, data: data };
  window.citegraphEmbed = api;

  // A version selector (<select data-navigate>) opens the URL of the option chosen.
  Array.prototype.forEach.call(document.querySelectorAll("select[data-navigate]"), function (select) {
    select.addEventListener("change", function () { if (select.value) window.location.assign(select.value); });
  });

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  // A page showing an earlier version of a set keeps it in the record links and dossiers it opens.
  var versionSet = body.getAttribute("data-version-set") || "";
  var version = body.getAttribute("data-version") || "";

  function setQuery(node) {
    if (!node.set) return "";
    var query = "?set=" + encodeURIComponent(node.set);
    return version && node.set === versionSet ? query + "&version=" + encodeURIComponent(version) : query;
  }

  function recordHref(node) {
    return base + "/embed/records/" + encodeURIComponent(node.record_id) + setQuery(node);
  }

  function nameOf(id) {
    var found = data.nodes.filter(function (n) { return n.id === id; })[0];
    return found ? (found.kind === "statement" ? found.label : found.name) : id;
  }

  function showDetails(node) {
    var box = document.createDocumentFragment();
    box.appendChild(el("h2", node.kind === "statement" ? node.document + " line " + node.line : node.name));
    var dl = el("dl");
    function row(term, value) {
      if (value === undefined || value === null || value === "") return;
      dl.appendChild(el("dt", term));
      var dd = el("dd");
      if (value instanceof Node) dd.appendChild(value); else dd.textContent = String(value);
      dl.appendChild(dd);
    }
    row("kind", node.kind.replace(/_/g, " ") + (node.statement_kind ? " (" + node.statement_kind.replace(/_/g, " ") + ")" : ""));
    row("set", node.set);
    row("document", node.document);
    row("section", node.section_heading);
    if (node.kind === "statement") {
      row("rests on it", node.direct ? "directly" : "transitively, " + node.depth + " evidence steps");
      row("text", node.text);
      var path = el("ol", null, "path");
      (node.path || []).forEach(function (id) { path.appendChild(el("li", nameOf(id))); });
      row("path", path);
    }
    if (node.kind === "record" && node.record_label) row("label", node.record_label);
    if (node.kind === "record") {
      var link = el("a", "open its own page");
      link.href = recordHref(node);
      row("record", link);
    }
    box.appendChild(dl);
    details.replaceChildren(box);
    details.setAttribute("data-node", node.id);
  }

  function reveal(anchor) {
    if (!anchor) return false;
    var target = document.getElementById(anchor);
    if (!target || !paneBody.contains(target)) return false;
    Array.prototype.forEach.call(paneBody.querySelectorAll(".cg-focus"), function (n) { n.classList.remove("cg-focus"); });
    target.classList.add("cg-focus");
    target.scrollIntoView({ block: "center" });
    return true;
  }

  function setPane(nodes, showing, title) {
    paneBody.replaceChildren.apply(paneBody, nodes);
    pane.setAttribute("data-showing", showing);
    paneBody.scrollTop = 0;
    paneBar.hidden = showing === initial.showing;
    paneTitle.textContent = title || "";
  }

  function showInitial() {
    setPane(initial.nodes, initial.showing, "");
  }

  function openDossier(node) {
    var url = base + "/embed/records/" + encodeURIComponent(node.record_id) + "/dossier" + setQuery(node);
    pane.setAttribute("aria-busy", "true");
    return fetch(url, { credentials: "same-origin" })
      .then(function (response) { return response.text().then(function (text) { return { ok: response.ok, text: text }; }); })
      .then(function (result) {
        var parsed = new DOMParser().parseFromString(result.text, "text/html");
        setPane(Array.prototype.slice.call(parsed.body.childNodes), result.ok ? "dossier:" + node.id : "error:" + node.id,
                "Dossier of " + node.record_id + " (" + node.set + ")");
      })
      .catch(function (error) {
        setPane([el("p", "Could not load the dossier: " + error, "cg-failed")], "error:" + node.id, "");
      })
      .finally(function () { pane.removeAttribute("aria-busy"); });
  }

  function select(id) {
    var node = data.nodes.filter(function (n) { return n.id === id; })[0];
    if (!node) return null;
    showDetails(node);
    if (node.kind === "record") return openDossier(node);
    reveal(node.anchor);
    return Promise.resolve();
  }

  api.select = select;
  api.openDossier = openDossier;
  api.showInitial = showInitial;
  document.getElementById("cg-back").addEventListener("click", showInitial);

  if (typeof window.cytoscape !== "function") {
    if (!document.getElementById("cg-notice")) {
      var notice = el("p", "The graph library did not load, so the graph is shown as a list.", "cg-notice");
      notice.id = "cg-notice";
      list.parentNode.insertBefore(notice, list);
    }
    return;
  }

  /* Each edge kind in its own line style (colour, dash, width); the server-rendered legend names them. */
  var EDGE_STYLE = {
    CITES: { color: "#8f8f86", style: "solid", width: 1.4 },
    ANNOTATES: { color: "#1a4f8b", style: "dashed", width: 1.6 },
    QUOTES: { color: "#b26a00", style: "dotted", width: 2 },
    SUPERSEDED_BY: { color: "#8b1a1a", style: "solid", width: 2.4 },
    RESOLVES_TO: { color: "#7b4fa0", style: "dashed", width: 1.6 },
    DECLARED_IN: { color: "#1a4f8b", style: "dotted", width: 2 },
    ATTRIBUTED_TO: { color: "#2a7f7f", style: "dotted", width: 2 },
    IN_SOURCE: { color: "#2a7f7f", style: "dashed", width: 1.6 },
    PART_OF: { color: "#555", style: "dashed", width: 1.2 },
    CONTAINS: { color: "#cfcfc6", style: "solid", width: 1 }
  };

  /* A star: the node asked about in the middle, the nodes one hop from it on an ellipse around it, and
   * every other node on the ray of the ring node its explanation path passes through, further out per
   * hop. Ring nodes with a chain behind them get a wider slot, so their neighbours' labels stay clear of
   * the chain's; the ring node with the longest chain points down, where a page has room. Several nodes
   * at the same hop of one ray stand in two columns across a vertical ray (labels outwards) or in one
   * column across a horizontal one (labels beyond). Deterministic. */
  function starLayout() {
    var anchorOf = {};
    data.nodes.forEach(function (n) {
      if (n.kind !== "statement" || !n.path || n.path.length < 2) return;
      var anchor = n.path[n.path.length - 2];
      n.path.forEach(function (id) { if (!(id in anchorOf)) anchorOf[id] = anchor; });
    });
    var starts = data.nodes.filter(function (n) { return (n.hops || 0) === 0; });
    var ring = data.nodes.filter(function (n) { return n.hops === 1; });
    var outer = data.nodes.filter(function (n) { return n.hops > 1; });
    var chain = {};
    outer.forEach(function (n) { var a = anchorOf[n.id]; chain[a] = Math.max(chain[a] || 0, n.hops); });
    var longest = ring.reduce(function (best, n, i) { return (chain[n.id] || 0) > (chain[ring[best].id] || 0) ? i : best; }, 0);
    /* The frame's shape decides the star's: wider than tall, the ellipse widens and the longest chain
     * points right instead of down, so the graph fills the frame and its labels stay large. */
    var box = graphBox.getBoundingClientRect();
    var aspect = box.height > 0 ? box.width / box.height : 1.6;
    var ry = Math.max(90, ring.length * 44 / (2 * Math.PI)), rx = ry * Math.min(2.4, Math.max(1.4, aspect)), step = 58;
    var down = aspect < 1.9 ? Math.PI / 2 : 0;
    var angle = {}, pos = {};
    var weights = ring.map(function (n) { return chain[n.id] ? 2.4 : 1; });
    var total = weights.reduce(function (a, b) { return a + b; }, 0) || 1;
    var at = 0, slots = [];
    weights.forEach(function (w) { slots.push(at + w / 2); at += w; });
    ring.forEach(function (n, i) {
      angle[n.id] = down + 2 * Math.PI * (slots[i] - slots[longest]) / total;
    });
    starts.forEach(function (n, i) {
      var a = 2 * Math.PI * i / starts.length;
      pos[n.id] = starts.length === 1 ? { x: 0, y: 0 } : { x: 50 * Math.cos(a), y: 50 * Math.sin(a) };
      angle[n.id] = Math.PI / 2;
    });
    ring.forEach(function (n) { pos[n.id] = { x: rx * Math.cos(angle[n.id]), y: ry * Math.sin(angle[n.id]) }; });
    var groups = {};
    outer.forEach(function (n) {
      var key = (anchorOf[n.id] || "") + "|" + n.hops;
      (groups[key] = groups[key] || []).push(n);
    });
    Object.keys(groups).forEach(function (key) {
      var members = groups[key];
      members.forEach(function (n, j) {
        var a = angle[anchorOf[n.id]] !== undefined ? angle[anchorOf[n.id]] : 0;
        var c = Math.cos(a), sn = Math.sin(a), along = (n.hops - 1) * step;
        var x = (rx + along) * c, y = (ry + along) * sn;
        angle[n.id] = a;
        n.alone = members.length === 1;
        if (!n.alone && Math.abs(sn) > 0.7) {  // a vertical ray: two columns, rows further out
          var left = j % 2 === 0, row = Math.floor(j / 2);
          x += left ? -46 : 46; y += (sn > 0 ? 1 : -1) * row * 30;
          n.halign = left ? "left" : "right"; n.valign = "center";
        } else if (!n.alone) {  // a horizontal ray: one column across it
          y += (j - (members.length - 1) / 2) * 24;
          n.halign = c > 0 ? "right" : "left"; n.valign = "center";
        }
        pos[n.id] = { x: x, y: y };
      });
    });
    data.nodes.forEach(function (n) {
      if (n.halign) return;
      var a = angle[n.id] || 0, c = Math.cos(a);
      if (n.alone || chain[n.id]) {  // on a ray of its own: label beside the ray
        var vertical = Math.abs(c) < 0.35;
        n.halign = vertical ? "right" : "center"; n.valign = vertical ? "center" : "bottom";
      } else if ((n.hops || 0) === 0 || Math.abs(c) < 0.08) {  // straight above or below: label centred
        n.halign = "center"; n.valign = Math.sin(a) < 0 ? "top" : "bottom";
      } else {
        n.halign = c > 0 ? "right" : "left"; n.valign = "center";
      }
    });
    return pos;
  }

  var positions = starLayout();
  var elements = data.nodes.map(function (n) {
    var d = Object.assign({}, n);
    d.cls = n.kind + (n.kind === "statement" ? (n.direct ? " direct" : " transitive") : "") + (n.start ? " start" : "");
    return { group: "nodes", data: d, classes: d.cls };
  }).concat(data.edges.map(function (e) {
    var look = EDGE_STYLE[e.drawn_as] || EDGE_STYLE.CITES;
    return { group: "edges", classes: "e-" + e.drawn_as,
             data: { id: e.id, source: e.source, target: e.target, kinds: e.kinds, drawn_as: e.drawn_as,
                     color: look.color, line: look.style, width: look.width } };
  }));

  list.hidden = true;
  graphBox.hidden = false;
  var cy = window.cytoscape({
    container: graphBox,
    elements: elements,
    wheelSensitivity: 0.3,
    minZoom: 0.2,
    maxZoom: 3,
    style: [
      { selector: "node", style: {
        "label": "data(label)", "font-size": 11, "font-family": "system-ui, sans-serif", "color": "#222",
        "text-valign": "data(valign)", "text-halign": "data(halign)", "text-margin-y": 0, "text-wrap": "wrap",
        "text-max-width": 230, "text-background-color": "#fff", "text-background-opacity": 0.75,
        "text-background-padding": 1,
        "width": 16, "height": 16, "background-color": "#9a9a90", "border-width": 1, "border-color": "#fff" } },
      { selector: "node.record", style: {
        "shape": "round-rectangle", "background-color": "#1a4f8b", "width": 26, "height": 26, "font-weight": "bold",
        "text-max-width": 260 } },
      { selector: "node.source_file", style: { "shape": "hexagon", "background-color": "#2a7f7f", "width": 22, "height": 22 } },
      { selector: "node.source", style: { "shape": "octagon", "background-color": "#2a7f7f", "width": 24, "height": 24 } },
      { selector: "node.document", style: { "shape": "rectangle", "background-color": "#5d5d55" } },
      { selector: "node.quotation", style: { "shape": "round-triangle", "background-color": "#b26a00" } },
      { selector: "node.start", style: { "width": 34, "height": 34, "font-size": 12, "font-weight": "bold" } },
      { selector: "node.record.start", style: { "text-margin-y": 4 } },
      { selector: "node[halign = 'right']", style: { "text-margin-x": 4 } },
      { selector: "node[halign = 'left']", style: { "text-margin-x": -4 } },
      { selector: "node[valign = 'top']", style: { "text-margin-y": -3 } },
      { selector: "node[valign = 'bottom']", style: { "text-margin-y": 3 } },
      { selector: "node.statement.direct", style: { "background-color": "#2f7d32" } },
      { selector: "node.statement.transitive", style: { "background-color": "#b26a00" } },
      { selector: "node.section", style: { "shape": "rectangle", "background-color": "#8d8d80" } },
      { selector: "node.named_reference", style: { "shape": "diamond", "background-color": "#7b4fa0", "width": 20, "height": 20 } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#f2b705" } },
      { selector: "edge", style: {
        "width": "data(width)", "line-color": "data(color)", "line-style": "data(line)",
        "target-arrow-color": "data(color)", "target-arrow-shape": "triangle", "arrow-scale": 0.8,
        "curve-style": "bezier" } }
    ],
    layout: { name: "preset", positions: function (node) { return positions[node.id()]; }, fit: true, padding: 28 }
  });
  api.cy = cy;
  /* Labels stay readable in a small frame: when the whole graph only fits zoomed out, the labels are
   * drawn larger (in graph units) so that on screen they keep at least 10 px, and the graph is fitted
   * again around them. */
  function readableLabels() {
    for (var round = 0; round < 3; round++) {
      var scale = Math.min(2.6, Math.max(1, 10.5 / (11 * cy.zoom())));
      cy.style().selector("node").style({ "font-size": 11 * scale, "text-max-width": 230 * scale })
        .selector("node.start").style({ "font-size": 12 * scale })
        .selector("node.record").style({ "text-max-width": 260 * scale }).update();
      cy.fit(undefined, 20);
    }
    if (cy.zoom() > 1.6) { cy.zoom(1.6); cy.center(); }
  }
  readableLabels();
  api.labelScale = function () { return cy.nodes()[0] ? parseFloat(cy.nodes()[0].style("font-size")) * cy.zoom() : 0; };
  if (window.ResizeObserver) {
    new window.ResizeObserver(function () { cy.resize(); readableLabels(); }).observe(graphBox);  // a frame resized: fit again
  }

  cy.on("tap", "node", function (event) {
    select(event.target.id());
  });
  body.setAttribute("data-graph", "ready");
})();
