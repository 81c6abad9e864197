/* docs/study's charts (charts/study.js, issue #25): Open Flash Chart 2 JSON drawn with Chart.js through
   ofc-render.js's converter (window.ofcToChartJs), plus the 95% confidence band of each averaged line.
   A band is two OFC2 line elements after the lines: "pb-band": "low" then "pb-band": "high"; the high one
   is filled down to the low one in the line's colour, both drawn without a line, dots or a legend entry.
   Runs in the browser from file://: the charts are embedded in the page as window.PB_STUDY_CHARTS. */
(function () {
  'use strict';

  function withBands(ofc, config) {
    var elements = (ofc.elements || []).filter(function (e) { return e.type === 'line' || e.type === 'scatter_line'; });
    var bands = elements.map(function (e) { return e['pb-band'] || null; });
    config.data.datasets.forEach(function (d, i) {
      if (!bands[i]) return;
      d.borderWidth = 0;
      d.pointRadius = 0;
      d.pointHoverRadius = 0;
      d.borderDash = [];
      d.segment = undefined;
      d.fill = bands[i] === 'high' ? '-1' : false;
      d.backgroundColor = elements[i].colour + '33';   // the line's colour at 20% opacity
    });
    config.options.plugins.legend.labels.filter = function (item) { return !bands[item.datasetIndex]; };
    config.options.plugins.filler = { propagate: false };
    return config;
  }

  function renderAll() {
    (window.PB_STUDY_CHARTS || []).forEach(function (c) {
      var canvas = document.getElementById(c.canvas);
      if (!canvas) return;
      try {
        new window.Chart(canvas, withBands(c.ofc, window.ofcToChartJs(c.ofc)));
        canvas.setAttribute('data-rendered', 'yes');
      } catch (err) {
        canvas.setAttribute('data-rendered', 'failed');
        console.error('chart ' + c.canvas + ': ' + err.message);
      }
    });
  }

  // The page loads Chart.js and ofc-render.js after its body: draw once the document is parsed.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', renderAll);
  else renderAll();
})();
