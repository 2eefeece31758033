// The operator console (issue 11): built out in infra/console/page/.
document.getElementById('console').textContent = 'Deposits operator console';
