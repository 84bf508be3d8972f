// typevet-go receipt viewer: filters for the case tables. Plain script,
// no build step; without it every row shows.
"use strict";
(function () {
  function apply(form, table) {
    var f = form.elements;
    var want = {
      variant: f.variant ? f.variant.value : "",
      result: f.result ? f.result.value : "",
      kind: f.kind ? f.kind.value : "",
      falseclear: f.falseclear ? f.falseclear.checked : false,
      cannottell: f.cannottell ? f.cannottell.checked : false
    };
    var rows = table.tBodies[0].rows;
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var d = rows[i].dataset;
      var ok = (!want.variant || d.variant === want.variant) &&
        (!want.result || d.result === want.result) &&
        (!want.kind || d.kind === want.kind) &&
        (!want.falseclear || d.falseclear === "true") &&
        (!want.cannottell || d.cannottell === "true");
      rows[i].hidden = !ok;
      if (ok) shown++;
    }
    f.count.value = shown + " of " + rows.length + " cases";
  }
  var forms = document.querySelectorAll("form.filters");
  for (var i = 0; i < forms.length; i++) {
    (function (form) {
      var table = document.getElementById(form.dataset.table);
      if (!table) return;
      form.addEventListener("change", function () { apply(form, table); });
      form.addEventListener("submit", function (e) { e.preventDefault(); });
      apply(form, table);
    })(forms[i]);
  }
})();
