// Sector of the annulus 1 < r < 1.5 of angle 0.5 (from the y axis towards x), 0 < z < 0.25, one
// layer of n x n curved hexahedra, periodic in z: the Gmsh meshes of the h-convergence tests
// (tests/test_curved.cpp), the same domain as dgmesh -Lx 0.5 -Ly 0.5 -Lz 0.25 -curve K.
// The committed files (gmsh sector.geo -3 -format msh41 -bin followed by):
//   sector_q2_n4.msh   -setnumber n 4 -order 2      sector_q2_n8.msh   -setnumber n 8 -order 2
//   sector_q3_n4.msh   -setnumber n 4 -order 3      sector_q3_n8.msh   -setnumber n 8 -order 3
// (Gmsh 4.8 exits with status 1 at orders 2 and 3 after writing the mesh: annulus.geo says why.)
DefineConstant[ n = 4 ];
Point(1) = {0, 0, 0};
Point(2) = {0, 1, 0};
Point(3) = {Sin(0.5), Cos(0.5), 0};
Point(4) = {1.5 * Sin(0.5), 1.5 * Cos(0.5), 0};
Point(5) = {0, 1.5, 0};
Circle(1) = {2, 1, 3};
Line(2) = {3, 4};
Circle(3) = {4, 1, 5};
Line(4) = {5, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1:4} = n + 1;
Transfinite Surface{1};
Recombine Surface{1};
ext[] = Extrude {0, 0, 0.25} { Surface{1}; Layers{1}; Recombine; };
Periodic Surface{ext[0]} = {1} Translate {0, 0, 0.25};
Physical Surface("inner") = {ext[2]};
Physical Surface("side1") = {ext[3]};
Physical Surface("outer") = {ext[4]};
Physical Surface("side0") = {ext[5]};
Physical Volume("sector") = {ext[1]};
