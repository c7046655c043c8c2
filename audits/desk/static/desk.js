/* factforge review desk: keyboard shortcuts, image zoom, sheet tabs, media keys.
   Everything works without this script (plain forms and links); it only adds speed. */
(function () {
  "use strict";

  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const typing = (el) => el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" ||
    (el.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(el.type)));

  /* ---------------------------------------------------------------- help overlay */
  const help = $("#help");
  function toggleHelp(show) {
    if (!help) return;
    help.hidden = show === undefined ? !help.hidden : !show;
  }
  $("#help-button") && $("#help-button").addEventListener("click", () => toggleHelp());
  $("#help-close") && $("#help-close").addEventListener("click", () => toggleHelp(false));
  help && help.addEventListener("click", (e) => { if (e.target === help) toggleHelp(false); });

  /* ---------------------------------------------------------------- claims panel */
  const form = $("#claims");
  const facts = form ? $$("fieldset.fact", form) : [];
  let current = 0;

  function setCurrent(i, scroll) {
    if (!facts.length) return;
    current = Math.max(0, Math.min(facts.length - 1, i));
    facts.forEach((f, j) => f.classList.toggle("current", j === current));
    if (scroll !== false) facts[current].scrollIntoView({ block: "nearest" });
  }

  function chosen(fs) {
    return $("input[type=radio]:checked", fs);
  }

  function choose(verdict) {
    if (!facts.length) return;
    const fs = facts[current];
    const input = $(`input[type=radio][value="${verdict}"]`, fs);
    if (!input) return;
    input.checked = true;
    fs.classList.remove("missing");
    const next = facts.findIndex((f, j) => j > current && !chosen(f));
    if (next >= 0) setCurrent(next);
  }

  function setRealistic(yes) {
    const input = form && $(`input[name=realistic][value="${yes ? "yes" : "no"}"]`, form);
    if (input) {
      input.checked = true;
      input.closest("fieldset").classList.remove("missing");
    }
  }

  function validate() {
    let ok = true;
    let first = -1;
    facts.forEach((f, j) => {
      const missing = !chosen(f);
      f.classList.toggle("missing", missing);
      if (missing && first < 0) first = j;
      if (missing) ok = false;
    });
    const realism = form && $("fieldset.realism", form);
    if (realism && !$("input[name=realistic]:checked", form)) {
      realism.classList.add("missing");
      ok = false;
    }
    if (first >= 0) setCurrent(first);
    return ok;
  }

  function submitForm() {
    if (!form) return;
    if (validate()) {
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  }

  if (form) {
    facts.forEach((f, j) => {
      f.addEventListener("click", () => setCurrent(j, false));
      $$("input[type=radio]", f).forEach((r) => r.addEventListener("change", () => f.classList.remove("missing")));
    });
    $$("input[name=realistic]", form).forEach((r) =>
      r.addEventListener("change", () => r.closest("fieldset").classList.remove("missing")));
    form.addEventListener("submit", (e) => {
      if (!validate()) e.preventDefault();
    });
  }

  /* ---------------------------------------------------------------- viewers */
  const media = $("#player");
  if (media) {
    const show = () => {
      const d = $("#duration");
      if (d && isFinite(media.duration)) d.textContent = `Duration ${media.duration.toFixed(1)} s.`;
    };
    media.addEventListener("loadedmetadata", show);
    show();
  }

  const img = $("#zoomimg");
  let zoom = 0; /* 0 = fit */
  function applyZoom(z) {
    if (!img) return;
    zoom = z;
    const label = $("#zoomlevel");
    if (z === 0) {
      img.classList.add("fit");
      img.style.width = "";
      if (label) label.textContent = "fit";
    } else {
      img.classList.remove("fit");
      img.style.width = Math.round(img.naturalWidth * z) + "px";
      if (label) label.textContent = Math.round(z * 100) + "%";
    }
  }
  function zoomStep(dir) {
    if (!img) return;
    const base = zoom === 0 ? img.clientWidth / (img.naturalWidth || 1) : zoom;
    applyZoom(Math.max(0.1, Math.min(8, dir > 0 ? base * 1.25 : base / 1.25)));
  }
  $$("[data-zoom]").forEach((b) => b.addEventListener("click", () => {
    const z = b.dataset.zoom;
    if (z === "fit") applyZoom(0);
    else if (z === "in") zoomStep(1);
    else if (z === "out") zoomStep(-1);
    else applyZoom(parseFloat(z));
  }));
  img && img.addEventListener("dblclick", () => applyZoom(zoom === 0 ? 1 : 0));

  /* sheet tabs and the JSON tables/pretty toggle */
  const tabs = $$(".workbook .tab");
  function showSheet(i) {
    if (!tabs.length) return;
    const n = ((i % tabs.length) + tabs.length) % tabs.length;
    tabs.forEach((t, j) => t.classList.toggle("active", j === n));
    $$(".workbook .sheetpane").forEach((p, j) => { p.hidden = j !== n; });
  }
  tabs.forEach((t, j) => t.addEventListener("click", () => showSheet(j)));
  const activeSheet = () => tabs.findIndex((t) => t.classList.contains("active"));

  $$(".jsonview [data-json]").forEach((b) => b.addEventListener("click", () => {
    const pretty = b.dataset.json === "pretty";
    $(".jsonview .json-tables").hidden = pretty;
    $(".jsonview .json-pretty").hidden = !pretty;
    $$(".jsonview [data-json]").forEach((x) => x.classList.toggle("active", x === b));
  }));

  /* fact index filter */
  const filter = $("#fact-filter");
  if (filter) {
    filter.addEventListener("input", () => {
      const q = filter.value.toLowerCase();
      $$("#fact-index tbody tr").forEach((tr) => { tr.hidden = q && !tr.textContent.toLowerCase().includes(q); });
    });
  }

  /* ---------------------------------------------------------------- keys */
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      if (form) { e.preventDefault(); submitForm(); }
      return;
    }
    if (e.key === "Escape") {
      if (help && !help.hidden) { toggleHelp(false); return; }
      if (typing(t)) t.blur();
      return;
    }
    if (typing(t) || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    let handled = true;
    if (k === "?") toggleHelp();
    else if (form && (k === "j")) setCurrent(current + 1);
    else if (form && (k === "k")) setCurrent(current - 1);
    else if (form && (k === "1" || k === "p")) choose("present");
    else if (form && (k === "2" || k === "a")) choose("absent");
    else if (form && (k === "3" || k === "w")) choose("wrong_value");
    else if (form && k === "P") { const keep = current; facts.forEach((f, j) => { current = j; choose("present"); }); setCurrent(keep); }
    else if (form && k === "y") setRealistic(true);
    else if (form && k === "x") setRealistic(false);
    else if (form && k === "n" && facts.length) $("input.note", facts[current]).focus();
    else if (form && k === "c") $("#comment").focus();
    else if (form && k === "s") submitForm();
    else if (media && k === "m") { media.paused ? media.play() : media.pause(); }
    else if (media && k === ",") media.currentTime = Math.max(0, media.currentTime - 5);
    else if (media && k === ".") media.currentTime = Math.min(media.duration || 0, media.currentTime + 5);
    else if (img && (k === "+" || k === "=")) zoomStep(1);
    else if (img && k === "-") zoomStep(-1);
    else if (img && k === "0") applyZoom(0);
    else if (k === "]" && tabs.length) showSheet(activeSheet() + 1);
    else if (k === "[" && tabs.length) showSheet(activeSheet() - 1);
    else if (k === "]" && $("#next-file")) location.href = $("#next-file").href;
    else if (k === "[" && $("#prev-file")) location.href = $("#prev-file").href;
    else if (k === "/" && filter) filter.focus();
    else handled = false;
    if (handled) e.preventDefault();
  });
})();
