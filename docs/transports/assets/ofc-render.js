/* Turns Open Flash Chart 2 JSON (line and scatter_line charts, study section 3.4.2) into Chart.js line charts.
   Runs in the browser from file://: the chart JSON is embedded in the page as window.PB_CHARTS.
   Styles honoured: an element's "line-style" {style: "dash", on, off} draws the line dashed; a
   "dot-style" type "hollow-dot" (on the element, or as "type" on one value) draws hollow dots (white
   fill, the line's colour as the ring), and a segment touching a hollow value is dashed. */
(function () {
  'use strict';

  function legendText(legend) {
    return legend && legend.text ? legend.text : '';
  }

  function isHollow(style) {
    return !!style && style.type === 'hollow-dot';
  }

  // The dash pattern of an OFC2 "line-style" ({style: "dash", on, off}), or [] for a solid line.
  function dashOf(lineStyle) {
    if (!lineStyle || lineStyle.style !== 'dash') return [];
    return [lineStyle.on || 6, lineStyle.off || 4];
  }

  // Chart.js options for one element's dots and line style; hollow[i]: whether point i is hollow.
  function styleOf(e, hollow) {
    var colour = (e['dot-style'] && e['dot-style'].colour) || e.colour;
    var someHollow = hollow.some(function (h) { return h; });
    var dash = dashOf(e['line-style']);
    var fill = someHollow ? function (ctx) { return hollow[ctx.dataIndex] ? '#FFFFFF' : colour; } : colour;
    return {
      backgroundColor: fill,
      pointBackgroundColor: fill,
      pointBorderColor: e.colour,
      pointBorderWidth: someHollow ? 1.5 : 1,
      borderDash: dash,
      // a segment leading to or from a hollow point is dashed too
      segment: someHollow && !dash.length ? {
        borderDash: function (ctx) { return hollow[ctx.p0DataIndex] || hollow[ctx.p1DataIndex] ? [6, 4] : undefined; }
      } : undefined
    };
  }

  // An element's points: a scatter_line's values give their x, a line's value sits at its index.
  function pointsOf(e) {
    var values = e.values || [];
    if (e.type === 'scatter_line') return values.map(function (v) { return { x: v.x, y: v.y }; });
    return values.map(function (v, i) {
      var value = v !== null && typeof v === 'object' ? v.value : v;
      return { x: i, y: value === undefined ? null : value };
    });
  }

  // One Chart.js dataset of an OFC2 element: its points from xMin on, its colour, line and dot styles
  // (no dots on a line of more than 150 values).
  function datasetOf(e, xMin) {
    var values = e.values || [];
    var data = pointsOf(e);
    var allHollow = isHollow(e['dot-style']);
    var hollow = values.map(function (v) { return allHollow || (v !== null && typeof v === 'object' && isHollow(v)); });
    var shown = data.map(function (p, i) { return i; }).filter(function (i) { return data[i].x >= xMin; });
    var style = styleOf(e, shown.map(function (i) { return hollow[i]; }));
    return {
      label: e.text || '',
      data: shown.map(function (i) { return data[i]; }),
      borderColor: e.colour,
      backgroundColor: style.backgroundColor,
      pointBackgroundColor: style.pointBackgroundColor,
      pointBorderColor: style.pointBorderColor,
      pointBorderWidth: style.pointBorderWidth,
      borderDash: style.borderDash,
      segment: style.segment,
      borderWidth: Math.max(1.5, e.width || 1),
      pointRadius: values.length > 150 ? 0 : ((e['dot-style'] && e['dot-style']['dot-size']) || 2),
      pointHoverRadius: 4,
      spanGaps: true,
      tension: 0
    };
  }

  // Chart.js scales of an OFC2 chart's x_axis and y_axis (both linear; y from 0 unless given), with
  // its legends as axis titles; scatter: whether x is a measured value rather than an index.
  function scalesOf(ofc, xMin, scatter) {
    var x = ofc.x_axis || {};
    var y = ofc.y_axis || {};
    return {
      x: {
        type: 'linear', min: xMin, max: typeof x.max === 'number' ? x.max : undefined,
        ticks: { stepSize: (x.labels && x.labels.steps) || x.steps || undefined, precision: scatter ? undefined : 0, color: '#4b5563', includeBounds: false,
          // OFC2's x_axis.labels.labels: a text per index in place of the number
          callback: x.labels && Array.isArray(x.labels.labels)
            ? function (v) { return x.labels.labels[v] !== undefined ? x.labels.labels[v] : ''; } : undefined },
        title: { display: true, text: legendText(ofc.x_legend), color: '#374151', font: { size: 12 } },
        grid: { color: '#eef0f3' }
      },
      y: {
        type: 'linear', min: typeof y.min === 'number' ? y.min : 0, max: typeof y.max === 'number' ? y.max : undefined,
        ticks: { stepSize: y.steps || undefined, color: '#4b5563' },
        title: { display: true, text: legendText(ofc.y_legend), color: '#374151', font: { size: 12 } },
        grid: { color: '#eef0f3' }
      }
    };
  }

  // A Chart.js plugin that fills the canvas with the chart's bg_colour (white by default) before drawing.
  function backgroundPlugin(ofc) {
    return {
      id: 'ofcBackground',
      beforeDraw: function (chart) {
        var ctx = chart.ctx;
        ctx.save();
        ctx.fillStyle = ofc.bg_colour || '#FFFFFF';
        ctx.fillRect(0, 0, chart.width, chart.height);
        ctx.restore();
      }
    };
  }

  // An OFC2 chart as a Chart.js line chart: its line and scatter_line elements as datasets from the
  // x axis' min on, its title, a legend unless one line is drawn alone, its axes and background.
  function toChartJs(ofc) {
    var x = ofc.x_axis || {};
    var xMin = typeof x.min === 'number' ? x.min : 0;
    var elements = (ofc.elements || []).filter(function (e) { return e.type === 'line' || e.type === 'scatter_line'; });
    var scatter = elements.some(function (e) { return e.type === 'scatter_line'; });
    var datasets = elements.map(function (e) { return datasetOf(e, xMin); });
    var single = datasets.length === 1;
    return {
      type: 'line',
      data: { datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: { xAxisKey: 'x', yAxisKey: 'y' },
        interaction: { mode: 'nearest', intersect: false, axis: 'x' },
        plugins: {
          title: { display: !!(ofc.title && ofc.title.text), text: ofc.title ? ofc.title.text : '',
            font: { size: 14, weight: '600' }, color: '#1f2937', padding: { bottom: 8 } },
          legend: { display: !single || scatter, position: 'bottom', labels: { boxWidth: 12, usePointStyle: true } }
        },
        scales: scalesOf(ofc, xMin, scatter)
      },
      plugins: [backgroundPlugin(ofc)]
    };
  }

  function renderAll() {
    var charts = window.PB_CHARTS || [];
    charts.forEach(function (c) {
      var canvas = document.getElementById(c.canvas);
      if (!canvas) return;
      try {
        new window.Chart(canvas, toChartJs(c.ofc));
        canvas.setAttribute('data-rendered', 'yes');
      } catch (err) {
        canvas.setAttribute('data-rendered', 'failed');
        console.error('chart ' + c.canvas + ': ' + err.message);
      }
    });
  }

  window.ofcToChartJs = toChartJs;
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', renderAll);
  else renderAll();
})();
