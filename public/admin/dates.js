// Dates are typed as YYYY-MM-DD, the form of every date on these pages (a browser's own date input
// shows its locale's, e.g. mm/dd/yyyy). Where the browser has a date picker, a "Calendar" button beside
// each date field opens it and writes the day chosen back in that form. Without this script the fields
// still take a typed day, and the presets still work.
(function () {
  'use strict';
  var probe = document.createElement('input');
  probe.type = 'date';
  if (probe.type !== 'date' || typeof probe.showPicker !== 'function') return;
  var DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
  Array.prototype.forEach.call(document.querySelectorAll('input[data-date]'), function (field) {
    var picker = document.createElement('input');
    picker.type = 'date';
    picker.tabIndex = -1;
    picker.className = 'date-picker';
    picker.setAttribute('aria-hidden', 'true');
    picker.setAttribute('aria-label', field.getAttribute('data-date') + ': calendar');
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'date-button';
    button.textContent = 'Calendar';
    button.setAttribute('aria-label', 'Pick ' + field.getAttribute('data-date') + ' from a calendar');
    button.addEventListener('click', function () {
      picker.value = DAY.test(field.value) ? field.value : '';
      try {
        picker.showPicker();
      } catch (error) {
        field.focus(); // no picker now (e.g. inside a frame): typing still works
      }
    });
    picker.addEventListener('change', function () {
      if (DAY.test(picker.value)) field.value = picker.value;
      field.focus();
    });
    field.after(picker, button);
  });
})();
