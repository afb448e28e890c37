// The copy button of a session block (doctest ">>> " / "... " lines, or a shell "$ " prompt):
// copies the code only, without the prompts and the printed output, so that it pastes into a
// script or a REPL as it is. mkdocs-material copies an ancestor's data-copy attribute when there
// is one (else the block's text); this sets it on each block whose lines have prompts (Pygments'
// class "gp"), keeping the lines that start with one, each without its prompt.
// Runs on every page load, including mkdocs-material's instant navigation (document$).
(function () {
  var MARK = "\u0000";

  function codeOnly(code) {
    var clone = code.cloneNode(true);
    clone.querySelectorAll(".gp").forEach(function (prompt) {
      prompt.textContent = MARK;
    });
    return clone.textContent
      .split("\n")
      .filter(function (line) { return line.charAt(0) === MARK; })
      .map(function (line) { return line.slice(1); })
      .join("\n");
  }

  function mark() {
    document.querySelectorAll(".highlight").forEach(function (block) {
      var code = block.querySelector("pre > code");
      if (!code || block.hasAttribute("data-copy") || !code.querySelector(".gp")) return;
      block.setAttribute("data-copy", codeOnly(code));
    });
  }

  if (typeof document$ !== "undefined") {
    document$.subscribe(mark);
  } else {
    document.addEventListener("DOMContentLoaded", mark);
  }
})();
