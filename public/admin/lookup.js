// Suggestions as one types, for text fields with data-lookup (the rider filters): after a short pause,
// the field's datalist is filled from the lookup's JSON ([{ value, label }]); choosing one puts the ID
// in the field. Without this script the field still takes an ID or a name (the server resolves it).
(function () {
  'use strict';
  var fields = document.querySelectorAll('input[data-lookup][list]');
  Array.prototype.forEach.call(fields, function (field) {
    var list = document.getElementById(field.getAttribute('list'));
    if (!list) return;
    var timer = null;
    var controller = null;
    var asked = '';
    field.addEventListener('input', function () {
      clearTimeout(timer);
      var term = field.value.trim();
      if (term === asked || (term.length < 2 && !/^[0-9]+$/.test(term))) return;
      timer = setTimeout(function () {
        if (controller) controller.abort();
        controller = new AbortController();
        asked = term;
        fetch(field.getAttribute('data-lookup') + '?q=' + encodeURIComponent(term), {
          signal: controller.signal,
          headers: { Accept: 'application/json' },
        })
          .then(function (res) {
            return res.ok ? res.json() : [];
          })
          .then(function (options) {
            list.replaceChildren.apply(
              list,
              options.map(function (o) {
                var option = document.createElement('option');
                option.value = o.value;
                option.label = o.label;
                return option;
              }),
            );
          })
          .catch(function () {
            /* a newer lookup replaced this one, or the network failed: keep what is shown */
          });
      }, 200);
    });
  });
})();
