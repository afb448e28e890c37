// Render pymdownx.arithmatex's output (generic mode) with the vendored KaTeX: inline math is
// <span class="arithmatex">\(...\)</span>, display math <div class="arithmatex">\[...\]</div>.
// Runs on every page load, including mkdocs-material's instant navigation (document$).
(function () {
  function render() {
    document.querySelectorAll(".arithmatex").forEach(function (el) {
      if (el.dataset.katex) return;
      var tex = el.textContent.trim();
      var display = tex.startsWith("\\[");
      tex = tex.replace(/^\\[\[(]/, "").replace(/\\[\])]$/, "");
      // KaTeX reads "@" as a letter of a command name (\beta@k is one unknown command); TeX ends the
      // name before it: \beta{}@k keeps TeX's reading.
      tex = tex.replace(/(\\[A-Za-z]+)@/g, "$1{}@");
      katex.render(tex, el, { displayMode: display, throwOnError: false });
      el.dataset.katex = "done";
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(render);
  } else {
    document.addEventListener("DOMContentLoaded", render);
  }
})();
