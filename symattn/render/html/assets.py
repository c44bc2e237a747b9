"""The report's inline style and script (no file, font or request of any kind)."""

CSS = """
:root{--ok:#2e7d32;--ok-bg:#e8f5e9;--car:#8d6e00;--car-bg:#fff3c4;--con:#00695c;--con-bg:#e0f2f1;
--bad:#c62828;--bad-bg:#ffebee;--un:#616161;--un-bg:#f2f2f2;--ink:#1b1b1b;--line:#ddd}
*{box-sizing:border-box}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK JP",sans-serif;color:var(--ink);background:#fff}
main{max-width:980px;margin:0 auto;padding:12px 16px 60vh}
h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid var(--line)}
h3{font-size:1.05em;margin:1.2em 0 .3em}h4{margin:.6em 0 .2em}
a{color:#1456a0}
.legend span{margin-right:.8em;white-space:nowrap}
table{border-collapse:collapse}th,td{padding:2px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto;max-width:100%}
.num{font:inherit;color:inherit;border:0;border-bottom:2px solid;padding:0 2px;margin:0;border-radius:3px;cursor:pointer;background:none;line-height:inherit}
.num:focus{outline:2px solid #1456a0;outline-offset:1px}
.v-correct.num{border-color:var(--ok);background:var(--ok-bg)}
.v-carried.num{border-color:var(--car);background:var(--car-bg)}
.v-consistent.num{border-color:var(--con);background:var(--con-bg)}
.v-wrong.num{border-color:var(--bad);background:var(--bad-bg);font-weight:600}
.v-wrong.num[data-follows]{border-bottom-style:double;border-bottom-width:3px;font-weight:500}
.v-unmatched.num{border-bottom-style:dashed;border-color:var(--un);background:var(--un-bg)}
td.v-wrong{color:var(--bad);font-weight:600}
.article{font:13px/1.6 ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono CJK JP",monospace;border:1px solid var(--line);border-radius:4px;overflow-x:auto}
.article .l{display:flex;gap:10px;padding:0 6px;min-height:1.6em}
.article .l:target,.article .l.hit{background:#fffde7}
.article .ln{flex:0 0 3.2em;text-align:right;color:#888;user-select:none;text-decoration:none}
.article .t{white-space:pre-wrap;word-break:break-word;flex:1}
.loose{border-left:2px solid var(--un);padding-left:4px;margin-left:4px}
.claims{list-style:none;padding-left:0}.claims li{padding:2px 0;border-bottom:1px dotted var(--line)}
.claims .at{color:#555}.claims .ex{color:#555;font-variant-numeric:tabular-nums}
ol.causes>li{margin-bottom:.6em}.cause{color:#555}.ex{color:#555;font-size:.9em;margin-right:.3em}
del{color:var(--bad)}ins{color:var(--ok);text-decoration:none;font-weight:600}
figure.heatmap{margin:1em 0;overflow-x:auto}figure.heatmap svg{max-width:100%;height:auto}
figcaption{color:#555;font-size:.9em}
#panel{position:fixed;top:0;right:0;width:min(460px,100%);height:100%;overflow:auto;background:#fff;
border-left:1px solid #bbb;box-shadow:-4px 0 16px rgba(0,0,0,.15);padding:12px 14px 24px;z-index:10}
#panel[hidden]{display:none}
#panel .close{float:right;font-size:1.3em;border:0;background:none;cursor:pointer}
.detail-head{padding:4px 8px;border-radius:4px;margin-bottom:6px}
.detail-head.v-correct{background:var(--ok-bg)}.detail-head.v-carried{background:var(--car-bg)}
.detail-head.v-consistent{background:var(--con-bg)}.detail-head.v-wrong{background:var(--bad-bg)}
.detail-head.v-unmatched{background:var(--un-bg)}
.values td{font-variant-numeric:tabular-nums;word-break:break-all}
.math{overflow-x:auto;border-top:1px solid var(--line);margin-top:8px}
.display{overflow-x:auto;padding:4px 0}
math{font-size:1.05em}
mtable.aligned>mtr>mtd{padding:3px 0}
mtable.aligned>mtr>mtd:first-child{text-align:right}mtable.aligned>mtr>mtd:last-child{text-align:left}
pre.tex{white-space:pre-wrap;font-size:12px}
.toc{font-size:.9em;color:#555}
.md{line-height:1.6}.md table{margin:.5em 0}.md th,.md td{border:1px solid var(--line)}
.md pre,.md code{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono CJK JP",monospace}
.md pre{background:#f7f7f7;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
.md code{background:#f3f3f3;border-radius:3px;padding:0 2px}.md pre code{background:none;padding:0}
.md .tex{color:#3b3b6b}.md .link{color:#1456a0;text-decoration:underline dotted}.md .image{color:#555}
.md img{display:none}
.notebook .cell{margin:.6em 0}.cell-n{font:12px ui-monospace,monospace;color:#888}
.notebook .md{border-left:3px solid var(--line);padding-left:10px}
.article.output{background:#fafafa}
.filters{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center;margin:.4em 0}
.filters label{white-space:nowrap}.shown{color:#555;font-size:.9em}
button.csv{font:inherit;padding:2px 10px;border:1px solid #1456a0;border-radius:4px;background:#fff;color:#1456a0;cursor:pointer}
table.numbers{font-size:13px}table.numbers td{white-space:nowrap}table.numbers td.c-note{white-space:normal;min-width:16em;color:#555}
table.numbers th button.sort{font:inherit;font-weight:600;border:0;background:none;padding:0;cursor:pointer;color:inherit}
table.numbers th[aria-sort=ascending] button.sort::after{content:" ▲"}
table.numbers th[aria-sort=descending] button.sort::after{content:" ▼"}
table.numbers tr[hidden]{display:none}
@media (min-width:701px){body.panel-open main{margin-right:min(470px,45vw)}}
@media (max-width:700px){
 main{padding:8px 10px 70vh}
 #panel{top:auto;bottom:0;width:100%;height:50vh;border-left:0;border-top:1px solid #bbb;box-shadow:0 -4px 16px rgba(0,0,0,.15)}
 .article .ln{flex-basis:2.4em}
 table.counts thead{display:none}
 table.counts,table.counts tbody{display:block}
 table.counts tr{display:flex;flex-wrap:wrap;gap:0 12px;padding:5px 0;border-bottom:1px solid var(--line)}
 table.counts th[scope=row]{flex:1 0 100%;border:0;padding:0 2px;overflow-wrap:anywhere}
 table.counts td{border:0;padding:0 2px}
 table.counts td.src,table.counts td.empty,table.counts td.zero:not(.c-wrong){display:none}
 table.counts td[data-label]::before{content:attr(data-label) " ";color:#555;font-weight:400}
}
@media print{
 #panel,.noprint,.filters,#numbers .hint{display:none!important}
 main{max-width:none;padding:0}
 .num{border-bottom-width:1px;background:none!important}
 .v-wrong.num::after{content:" [wrong; expected " attr(data-expected) "]";font-weight:400;font-size:.8em}
 .v-carried.num::after{content:" [carried]";font-size:.8em}
 .article{border:0;font-size:10px}
 h2{break-after:avoid}figure,tr,li{break-inside:avoid}
 a{color:inherit;text-decoration:none}
}
"""

JS = """
(function(){
var panel=document.getElementById('panel'),body=document.getElementById('panel-body'),current=null;
function keepVisible(btn){
 var p=panel.getBoundingClientRect(),b=btn.getBoundingClientRect();
 if(p.top>1){if(b.bottom>p.top-4||b.top<0)window.scrollBy(0,b.top-Math.max(8,(p.top-b.height)/2));}
 else if(b.top<48||b.bottom>innerHeight-48||(b.right>p.left&&b.left<p.right))btn.scrollIntoView({block:'center',inline:'nearest'});
}
function fill(btn){
 var t=document.getElementById(btn.getAttribute('data-detail'));
 if(!t)return;
 var c=t.content.cloneNode(true);
 c.querySelectorAll('.math[data-math]').forEach(function(m){
  var s=document.getElementById(m.getAttribute('data-math'));
  if(s)m.appendChild(s.content.cloneNode(true));
 });
 body.replaceChildren(c);
 panel.hidden=false;document.body.classList.add('panel-open');
 if(current)current.setAttribute('aria-expanded','false');
 current=btn;btn.setAttribute('aria-expanded','true');
 keepVisible(btn);
}
function close(){panel.hidden=true;document.body.classList.remove('panel-open');}
document.addEventListener('click',function(e){
 var b=e.target.closest('button.num');
 if(b){fill(b);return;}
 if(e.target.closest('#panel .close')){close();if(current)current.focus();}
});
document.addEventListener('focusin',function(e){
 var b=e.target.closest&&e.target.closest('button.num');
 if(b&&b!==current)fill(b);
});
document.addEventListener('keydown',function(e){if(e.key==='Escape')close();});
function go(){var t=location.hash&&document.getElementById(location.hash.slice(1));
 if(t&&t.matches('button.num')){t.focus();fill(t);}}
window.addEventListener('hashchange',go);go();
var table=document.getElementById('numbers-table');
if(!table)return;
var tbody=table.tBodies[0],heads=table.tHead.rows[0].cells,shown=document.getElementById('shown');
function rows(){return Array.prototype.slice.call(tbody.rows);}
Array.prototype.forEach.call(heads,function(th,k){
 th.querySelector('button').addEventListener('click',function(){
  var up=th.getAttribute('aria-sort')!=='ascending',num=th.dataset.type==='number';
  Array.prototype.forEach.call(heads,function(h){h.setAttribute('aria-sort','none');});
  th.setAttribute('aria-sort',up?'ascending':'descending');
  var key=function(r){var s=r.cells[k].textContent;return num?(s===''?Infinity:parseFloat(s)):s;};
  var sorted=rows().map(function(r,i){return [key(r),i,r];}).sort(function(a,b){
   var d=num?(a[0]===b[0]?0:(a[0]<b[0]?-1:1)):String(a[0]).localeCompare(String(b[0]),undefined,{numeric:true});
   return (up?d:-d)||a[1]-b[1];});
  sorted.forEach(function(x){tbody.appendChild(x[2]);});
 });
});
var boxes=document.querySelectorAll('.filters input[name=verdict]');
function filter(){
 var on={};boxes.forEach(function(b){on[b.value]=b.checked;});
 var n=0,all=rows();all.forEach(function(r){r.hidden=!on[r.dataset.verdict];if(!r.hidden)n++;});
 shown.textContent=n+' of '+all.length+' rows shown';
}
boxes.forEach(function(b){b.addEventListener('change',filter);});
function cell(s){
 if(/^[=@\\t\\r]/.test(s)||/^[-+](?![0-9.\\u221e]|inf$)/.test(s))s="'"+s;
 return /[",\\r\\n]/.test(s)?'"'+s.replace(/"/g,'""')+'"':s;
}
document.getElementById('csv').addEventListener('click',function(){
 var lines=[Array.prototype.map.call(heads,function(h){return cell(h.dataset.key);}).join(',')];
 rows().forEach(function(r){if(r.hidden)return;
  lines.push(Array.prototype.map.call(r.cells,function(c){
   return cell(c.hasAttribute('data-csv')?c.getAttribute('data-csv'):c.textContent);}).join(','));});
 var a=document.createElement('a');
 a.href='data:text/csv;charset=utf-8,'+encodeURIComponent('\\ufeff'+lines.join('\\r\\n')+'\\r\\n');
 a.download='symattn-numbers.csv';document.body.appendChild(a);a.click();a.remove();
});
})();
"""
