// Annulus 1 < r < 2 about the z axis, 0 < z < 0.5: a curved all-hex test mesh, periodic in z
// (or, with -setnumber periodic 0, with physical surfaces "bottom" and "top").
// The committed files (gmsh annulus.geo -3 followed by):
//   annulus_q1.msh        -order 1 -format msh41
//   annulus_q2_bin.msh    -order 2 -format msh41 -bin
//   annulus_q3.msh        -order 3 -format msh41
//   annulus22_q2.msh      -setnumber periodic 0 -order 2 -format msh22
//   annulus22_q3_bin.msh  -setnumber periodic 0 -order 3 -format msh22 -bin
// Elements per quarter ring and across it: -setnumber n N, -setnumber nr N (default 2, 2).
// MSH 2.2 files carry Gmsh's periodic node pairs only with -save_all; use periodic 0 for them.
// At -order 2 and 3, Gmsh 4.8 reports "Cannot find periodic counterpart" for high-order nodes of
// the periodic curves and exits with status 1, but writes the whole mesh: dgsolve pairs the
// periodic faces by the link's affine map and checks that their nodes match.
DefineConstant[ n = 2, nr = 2, periodic = 1 ];
Point(1) = {0, 0, 0};
For q In {0:3}
  Point(10 + q) = {Cos(q * Pi / 2), Sin(q * Pi / 2), 0};
  Point(20 + q) = {2 * Cos(q * Pi / 2), 2 * Sin(q * Pi / 2), 0};
EndFor
For q In {0:3}
  Circle(10 + q) = {10 + q, 1, 10 + (q + 1) % 4};
  Circle(20 + q) = {20 + q, 1, 20 + (q + 1) % 4};
  Line(30 + q) = {10 + q, 20 + q};
EndFor
For q In {0:3}
  Curve Loop(40 + q) = {30 + q, 20 + q, -(30 + (q + 1) % 4), -(10 + q)};
  Plane Surface(40 + q) = {40 + q};
  Transfinite Curve{10 + q, 20 + q} = n + 1;
  Transfinite Curve{30 + q} = nr + 1;
  Transfinite Surface{40 + q};
  Recombine Surface{40 + q};
EndFor
ext[] = Extrude {0, 0, 0.5} { Surface{40:43}; Layers{1}; Recombine; };
// ext[6*q] top, ext[6*q+1] volume, then the lateral surfaces in the order of the loop curves:
// ext[6*q+2] from line 30+q, ext[6*q+3] outer arc, ext[6*q+4] next line, ext[6*q+5] inner arc.
If (periodic)
  Periodic Surface{ext[0], ext[6], ext[12], ext[18]} = {40, 41, 42, 43} Translate {0, 0, 0.5};
Else
  Physical Surface("bottom") = {40, 41, 42, 43};
  Physical Surface("top") = {ext[0], ext[6], ext[12], ext[18]};
EndIf
Physical Surface("inner") = {ext[5], ext[11], ext[17], ext[23]};
Physical Surface("outer") = {ext[3], ext[9], ext[15], ext[21]};
Physical Volume("ring") = {ext[1], ext[7], ext[13], ext[19]};
