// A rule list's batch at hand: a box above the table ticks every row of the page, and once a
// row is ticked a bar at the bottom of the screen says how many and leads to the batch form (its note
// focused), or clears them. A batch of ticked rows with none ticked is stopped here with the reason. Without
// this script the boxes and the batch form below the table work as before.
(function () {
  'use strict';
  var form = document.getElementById('batch-form');
  if (!form) return;
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[type="checkbox"][name="subjects"][form="batch-form"]'));
  if (!boxes.length) return;
  var table = boxes[0].closest('table');
  // Above the table, on a desk and on a phone (whose table has no header row to hold it).
  var tools = document.createElement('p');
  tools.className = 'pick-all';
  var all = document.createElement('input');
  all.type = 'checkbox';
  all.id = 'pick-all';
  var allLabel = document.createElement('label');
  allLabel.htmlFor = 'pick-all';
  allLabel.textContent = ' Tick every row of this page (' + boxes.length.toLocaleString('en') + ')';
  tools.appendChild(all);
  tools.appendChild(allLabel);

  var bar = document.createElement('div');
  bar.className = 'batch-bar';
  bar.hidden = true;
  var count = document.createElement('span');
  count.className = 'batch-count';
  count.setAttribute('role', 'status');
  var go = document.createElement('a');
  go.href = '#batch-form';
  go.textContent = 'Mark handled or give them';
  var clear = document.createElement('button');
  clear.type = 'button';
  clear.textContent = 'Clear';
  bar.appendChild(count);
  bar.appendChild(go);
  bar.appendChild(clear);
  var wrap = table.closest('.table-wrap') || table;
  wrap.parentNode.insertBefore(tools, wrap);
  wrap.parentNode.insertBefore(bar, wrap);

  var ticked = function () {
    return boxes.filter(function (box) {
      return box.checked;
    }).length;
  };
  var update = function () {
    var n = ticked();
    count.textContent = n === 1 ? '1 row ticked' : n.toLocaleString('en') + ' rows ticked';
    bar.hidden = n === 0;
    document.body.classList.toggle('with-batch-bar', n > 0);
    all.checked = n === boxes.length;
    all.indeterminate = n > 0 && n < boxes.length;
    var radio = form.querySelector('input[name="which"][value="ticked"]');
    if (radio && radio.parentNode)
      radio.parentNode.lastChild.textContent = ' The rows ticked in the table above (' + n.toLocaleString('en') + ')';
  };
  boxes.forEach(function (box) {
    box.addEventListener('change', update);
  });
  all.addEventListener('change', function () {
    boxes.forEach(function (box) {
      box.checked = all.checked;
    });
    update();
  });
  clear.addEventListener('click', function () {
    boxes.forEach(function (box) {
      box.checked = false;
    });
    update();
    all.focus();
  });
  go.addEventListener('click', function (event) {
    event.preventDefault();
    var ticked = form.querySelector('input[name="which"][value="ticked"]');
    if (ticked) ticked.checked = true;
    form.scrollIntoView({ block: 'start' });
    var note = form.querySelector('textarea[name="note"]');
    if (note) note.focus({ preventScroll: true });
  });
  // "The rows ticked" with none ticked: said at the form, nothing sent.
  var said = document.createElement('p');
  said.className = 'field-error';
  said.id = 'batch-which-error';
  said.setAttribute('role', 'alert');
  said.hidden = true;
  var which = form.querySelector('fieldset');
  if (which) which.appendChild(said);
  form.addEventListener('submit', function (event) {
    var choice = form.querySelector('input[name="which"]:checked');
    if (choice && choice.value === 'ticked' && ticked() === 0) {
      event.preventDefault();
      said.textContent = 'No row is ticked: tick rows in the table, or choose all the rows the filters select.';
      said.hidden = false;
      (which || form).scrollIntoView({ block: 'center' });
    }
  });
  update();
})();
