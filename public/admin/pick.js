// A box that narrows a long select (the item picker: select[data-searchable]) as one types: an option stays
// when every word typed is in its text or its group's, in any order. The first one left is chosen if the
// one chosen was narrowed away, so typing then Enter applies it. Without this script the select is the
// whole list, as before.
(function () {
  'use strict';
  var lower = function (text) {
    return text.toLocaleLowerCase();
  };
  Array.prototype.forEach.call(document.querySelectorAll('select[data-searchable]'), function (select) {
    var box = document.createElement('input');
    box.type = 'search';
    box.className = 'pick-search';
    box.placeholder = 'Type to narrow the list';
    box.autocomplete = 'off';
    box.setAttribute('aria-label', 'Narrow the list below by typing');
    box.setAttribute('aria-controls', select.id);
    var status = document.createElement('span');
    status.className = 'visually-hidden';
    status.setAttribute('role', 'status');
    select.parentNode.insertBefore(box, select);
    select.parentNode.insertBefore(status, select.nextSibling);
    box.addEventListener('input', function () {
      var words = lower(box.value).split(/\s+/).filter(Boolean);
      var first = null;
      var shown = 0;
      Array.prototype.forEach.call(select.options, function (option) {
        if (!option.value) return; // "Any" always stays
        var group = option.parentNode.tagName === 'OPTGROUP' ? option.parentNode.label + ' ' : '';
        var text = lower(group + option.text);
        var kept = words.every(function (word) {
          return text.indexOf(word) !== -1;
        });
        option.hidden = !kept;
        if (kept) {
          shown += 1;
          first = first || option;
        }
      });
      Array.prototype.forEach.call(select.querySelectorAll('optgroup'), function (group) {
        group.hidden = !Array.prototype.some.call(group.children, function (option) {
          return !option.hidden;
        });
      });
      var chosen = select.options[select.selectedIndex];
      if (first && (!chosen || chosen.hidden || !chosen.value)) select.value = first.value;
      status.textContent = words.length ? shown + (shown === 1 ? ' choice matches' : ' choices match') : '';
    });
  });
})();
