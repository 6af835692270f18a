% Solves every problem of `infile` with Octave's lsqnonneg and writes, one line per problem,
% |C x - d|, nnz(x > 0) and the loaded set as a bit mask (bit i-1 set when x_i > 1e-12 max(x):
% tendyn's rule for a loaded cable) to `outfile`. Input format: N, then per problem "m n", C (m*n, column-major), d (m).
% Used by tests/cdpr/nnls_test.cpp and bench/cdpr_compare.m. Set infile/outfile before sourcing.
warning('off', 'all');
fid = fopen(infile, 'r');
N = fscanf(fid, '%d', 1);
out = fopen(outfile, 'w');
for k = 1:N
  s = fscanf(fid, '%d', 2);
  m = s(1); n = s(2);
  C = reshape(fscanf(fid, '%lf', m * n), m, n);
  d = fscanf(fid, '%lf', m);
  x = lsqnonneg(C, d);
  loaded = find(x > 1e-12 * max(x));
  fprintf(out, '%.17g %d %d\n', norm(C * x - d), nnz(x > 0), sum(2 .^ (loaded - 1)));
end
fclose(fid);
fclose(out);
