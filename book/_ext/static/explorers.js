// Embeds every explorer on the page: each .statetrack-explorer holds its Vega-Lite spec as JSON
// (statetrack.site.explorers.VegaLitePlugin); vega-embed draws it as SVG, with its controls below the plot.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".statetrack-explorer").forEach(function (box) {
    var data = box.querySelector('script[type="application/json"]');
    var target = document.createElement("div");
    box.appendChild(target);
    vegaEmbed(target, JSON.parse(data.textContent), { actions: false, renderer: "svg" }).catch(function (err) {
      target.textContent = "This explorer could not be drawn: " + err;
      console.error(err);
    });
  });
});
