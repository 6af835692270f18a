% Solves every problem of `infile` with Octave's lsqnonneg and writes |C x - d| (one per line)
% to `outfile`. Input format: N, then per problem "m n", C (m*n, column-major), d (m).
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
  fprintf(out, '%.17g %d\n', norm(C * x - d), nnz(x > 0));
end
fclose(fid);
fclose(out);
