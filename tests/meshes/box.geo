// Straight box [0,1] x [0,2] x [0,1] of 2 x 2 x 2 transfinite hexahedra: at any geometric order
// every node sits at its trilinear position (the reader's node-order test).
//   gmsh box.geo -3 -order 3 -format msh41 -o box_q3.msh
//   gmsh box.geo -3 -order 2 -format msh22 -o box22_q2.msh
Point(1) = {0, 0, 0}; Point(2) = {1, 0, 0}; Point(3) = {1, 2, 0}; Point(4) = {0, 2, 0};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1:4} = 3;
Transfinite Surface{1};
Recombine Surface{1};
ext[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };
Physical Surface("walls") = {1, ext[0], ext[2], ext[3], ext[4], ext[5]};
Physical Volume("box") = {ext[1]};
