// The widget embedder (@jupyter-widgets/html-manager 1.0.6) typesets labels through MathJax 2's
// MathJax.Hub.Queue; the book serves MathJax 3, which has no Hub, so every widget threw a TypeError.
// This maps Queue(["Typeset", hub, element]) onto MathJax 3's typesetPromise. Loaded after MathJax.
(function () {
  var mj = window.MathJax;
  if (!mj || mj.Hub || !mj.startup) return;
  mj.Hub = {
    Queue: function () {
      Array.prototype.forEach.call(arguments, function (job) {
        if (Array.isArray(job) && job[0] === "Typeset" && job[2]) {
          mj.startup.promise.then(function () { return mj.typesetPromise([job[2]]); });
        }
      });
    }
  };
})();
