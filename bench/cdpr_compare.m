% Mean time [us] of Octave's lsqnonneg over the problems of `infile` (format of
% tests/cdpr/lsqnonneg_compare.m), `reps` passes. Called by bench/cdpr_compare.py.
warning('off', 'all');
fid = fopen(infile, 'r');
N = fscanf(fid, '%d', 1);
C = cell(N, 1); d = cell(N, 1);
for k = 1:N
  s = fscanf(fid, '%d', 2);
  C{k} = reshape(fscanf(fid, '%lf', s(1) * s(2)), s(1), s(2));
  d{k} = fscanf(fid, '%lf', s(1));
end
fclose(fid);
for k = 1:N, lsqnonneg(C{k}, d{k}); end
t0 = tic;
for r = 1:reps
  for k = 1:N
    lsqnonneg(C{k}, d{k});
  end
end
printf('%.3f\n', toc(t0) / (reps * N) * 1e6);
