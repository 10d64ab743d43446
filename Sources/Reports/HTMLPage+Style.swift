extension HTMLPage {
    /// The page's one stylesheet, inlined so the page stands alone.
    static let css = """
    :root {
      --ink: #1f2933; --muted: #66717e; --line: #dfe3e8; --paper: #ffffff; --page: #f5f6f8;
      --bar: #4a5b6d; --elig: #e6e9ee; --skip: #b8c0ca; --accent: #d24b1f; --accent-soft: #fbeae3;
      font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
      color: var(--ink); background: var(--page); line-height: 1.4;
      -webkit-print-color-adjust: exact; print-color-adjust: exact;
    }
    * { box-sizing: border-box; }
    body { margin: 0; font-size: 14px; }
    main { max-width: 1120px; margin: 0 auto; padding: 24px 20px 40px; }
    code, pre { font-family: ui-monospace, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: .92em; }
    h1 { font-size: 28px; margin: 2px 0 8px; letter-spacing: -.01em; }
    h2 { font-size: 17px; margin: 0 0 6px; }
    h3 { font-size: 14px; margin: 14px 0 6px; }
    .muted { color: var(--muted); font-weight: normal; }
    .sig { font-weight: 600; color: var(--ink); }
    .eyebrow { margin: 0; color: var(--muted); text-transform: uppercase; letter-spacing: .06em; font-size: 12px; }
    .scope { list-style: none; padding: 0; margin: 0 0 18px; display: flex; flex-wrap: wrap; gap: 6px 18px; }
    .scope span { color: var(--muted); }
    .card { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 18px 20px; margin: 0 0 18px; }
    .hint { color: var(--muted); margin: 0 0 12px; }
    .key { white-space: nowrap; margin-right: 8px; }
    .sw { display: inline-block; width: 12px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
    .sw.reached { background: var(--bar); } .sw.drop { background: var(--accent); }
    .sw.elig { background: var(--elig); border: 1px solid #c9cfd6; }
    .sw.skip, .skip { background: repeating-linear-gradient(135deg, var(--skip) 0 3px, #eef0f3 3px 6px); }
    .kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; margin: 0 0 18px; }
    .kpi { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
    .kpi .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
    .kpi .value { font-size: 26px; font-weight: 650; font-variant-numeric: tabular-nums; margin: 2px 0; }
    .kpi .sub { color: var(--muted); font-size: 12px; }
    .kpi.warn .value { color: var(--accent); }
    .kpi .q { font-size: 13px; color: var(--muted); font-weight: normal; }
    .ratebar { display: block; position: relative; height: 8px; margin-top: 7px; background: var(--elig); border-radius: 4px; }
    .ratebar .fill { position: absolute; left: 0; top: 0; bottom: 0; background: var(--bar); border-radius: 4px 0 0 4px; }
    .ratebar .ci { position: absolute; top: -3px; bottom: -3px; border: 1.5px solid var(--ink); border-top: 0; border-bottom: 0; }
    .ratebar .ci::after { content: ""; position: absolute; left: 0; right: 0; top: 6px; border-top: 1.5px solid var(--ink); }
    .lane { margin: 0 0 6px; }
    .lanehead { border-bottom: 1px solid var(--line); padding-bottom: 4px; font-weight: normal; }
    .funnel .row { display: grid; grid-template-columns: minmax(130px, 210px) 1fr 250px; gap: 12px; align-items: center; padding: 5px 6px; border-radius: 6px; }
    .funnel .row.top { background: var(--accent-soft); }
    .label code.step { font-weight: 600; font-size: 13px; }
    .label .title, .label .cond { display: block; color: var(--muted); font-size: 12px; }
    .label .cond code { font-size: 11px; }
    .rank { display: inline-block; background: var(--accent); color: #fff; border-radius: 9px; padding: 0 6px; font-size: 11px; font-weight: 700; }
    .barbox { position: relative; height: 20px; }
    .barbox .elig { position: absolute; left: 0; top: 0; bottom: 0; background: var(--elig); border-radius: 3px; }
    .barbox .stack { position: absolute; left: 0; top: 3px; bottom: 3px; right: 0; display: flex; }
    .stack > div { height: 100%; }
    .stack .reached { background: var(--bar); border-radius: 2px 0 0 2px; }
    .stack .drop { background: var(--accent); }
    .stack .skip { border-radius: 0 2px 2px 0; }
    .skipnote { font-size: 12px; color: var(--muted); margin-top: 2px; }
    .notrack { height: 20px; border: 1px dashed #c4cad2; border-radius: 3px; color: var(--muted); font-size: 12px; padding: 1px 8px; background: #fafbfc; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .row.untracked .label, .row.skipped .label { opacity: .6; }
    .nums { font-size: 12px; font-variant-numeric: tabular-nums; }
    .nums .big { font-size: 16px; font-weight: 650; }
    .dropn { color: var(--accent); font-weight: 600; }
    .edge { padding: 0 6px 0 calc(min(210px, 30%) + 18px); font-size: 12px; color: var(--muted); line-height: 1.2; }
    .edge .arrow { color: var(--bar); }
    .edge.low b { color: var(--accent); }
    .drops { margin: 0; padding: 0; list-style: none; }
    .drops li { display: grid; grid-template-columns: 34px minmax(160px, 250px) 1fr 230px; gap: 12px; align-items: center; padding: 4px 0; }
    .drops .rank { justify-self: start; }
    .dbar { height: 10px; background: var(--elig); border-radius: 3px; overflow: hidden; }
    .dbar i { display: block; height: 100%; background: var(--accent); }
    .dn { font-variant-numeric: tabular-nums; }
    svg.histogram { width: 100%; height: auto; display: block; font-family: inherit; }
    .histogram .bin { fill: var(--bar); }
    svg.trendchart { width: 100%; height: auto; display: block; font-family: inherit; }
    .trendchart .grid { stroke: var(--line); } .trendchart .axisline { stroke: #9aa5b1; }
    .trendchart .axis { fill: var(--muted); }
    .trendchart .band { fill: var(--elig); }
    .trendchart .trendline { stroke: var(--bar); stroke-width: 2; }
    .trendchart .trendline.unsettled { stroke-dasharray: 5 4; stroke: var(--skip); }
    .trendchart .pt { fill: var(--bar); }
    .trendchart .pt.unsettled { fill: var(--paper); stroke: var(--skip); stroke-width: 2; }
    .histogram .grid { stroke: var(--line); } .histogram .axisline, .histogram .tick { stroke: #9aa5b1; }
    .histogram .axis { fill: var(--muted); }
    .histogram .marker line { stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 4 3; }
    .histogram .marker text { fill: var(--accent); font-weight: 650; }
    .multiples { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 14px; }
    .group { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
    .group h3 { margin: 0 0 4px; font-size: 15px; }
    .gstats { margin: 0 0 6px; font-size: 12px; font-variant-numeric: tabular-nums; }
    .funnel.compact .lanehead { font-size: 12px; margin: 8px 0 2px; }
    .funnel.compact .row { grid-template-columns: 96px 1fr 58px; gap: 6px; padding: 1px 4px; }
    .funnel.compact .label code.step { font-size: 11px; display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .funnel.compact .barbox, .funnel.compact .notrack { height: 14px; }
    .funnel.compact .notrack { font-size: 10px; padding: 0 4px; line-height: 12px; }
    .funnel.compact .nums { font-size: 11px; text-align: right; }
    .funnel.compact .edge { padding-left: 106px; font-size: 10px; }
    .empty { font-size: 12px; }
    .scroll { overflow-x: auto; }
    table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
    td:first-child { white-space: nowrap; }
    th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
    thead th { color: var(--muted); font-weight: 600; font-size: 12px; border-bottom: 1.5px solid #c4cad2; }
    .n { text-align: right; white-space: nowrap; }
    thead th.n { white-space: normal; }
    tr.lanestart td { border-top: 1.5px solid #c4cad2; }
    tr.top td { background: var(--accent-soft); }
    tr.untracked td { color: var(--muted); }
    tr.total th, tr.total td { font-weight: 650; }
    footer { color: var(--muted); font-size: 12.5px; padding: 4px 4px 0; }
    footer h2 { color: var(--ink); font-size: 15px; }
    .defs { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0 0 14px; }
    .defs dt { font-weight: 650; color: var(--ink); }
    .defs dd { margin: 0; }
    .provenance { margin: 0 0 4px; }
    pre.command { background: var(--paper); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; white-space: pre-wrap; word-break: break-all; color: var(--ink); margin: 0; }
    @media (max-width: 720px) {
      .funnel .row { grid-template-columns: 1fr; gap: 2px; }
      .edge { padding-left: 6px; }
      .drops li { grid-template-columns: 34px 1fr; gap: 2px 8px; }
      .drops .dbar, .drops .dn { grid-column: 2; }
      .defs { grid-template-columns: 1fr; }
    }
    @media print {
      :root { background: #fff; }
      body { font-size: 11px; }
      main { max-width: none; padding: 0; }
      .card, .kpi { border-color: #ccc; break-inside: avoid; }
      .group, .lane, tr { break-inside: avoid; }
      .breakdown, .tables { break-inside: auto; }
      .scroll { overflow: visible; }
    }

    """
}
