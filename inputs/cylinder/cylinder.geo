// Channel [-3, 8] x [-2, 2] x [0, 0.2] around a cylinder of radius 0.5 at the origin: an all-hex
// O-grid (transfinite blocks, one extruded layer), for cylinder.yaml beside it. Make the mesh with
//   gmsh cylinder.geo -3 -order 2 -format msh41 -o cylinder.msh
// (-order 2: 27-node hexahedra, so the cylinder is curved). Named boundaries: inlet (x = -3),
// outlet (x = 8), walls (y = +-2), cylinder, and front / back (z = 0, 0.2).
DefineConstant[ R = 0.5, a = 1.0, nq = 6, nr = 4, nl = 4, nd = 11, nv = 3 ];
xl = -3; xr = 8; yb = -2; yt = 2; lc = 1;
c = R / Sqrt(2);
Point(1) = {0, 0, 0, lc};
// cylinder arc points and the corners of the square around it
Point(2) = {c, c, 0, lc};   Point(3) = {-c, c, 0, lc};  Point(4) = {-c, -c, 0, lc}; Point(5) = {c, -c, 0, lc};
Point(6) = {a, a, 0, lc};   Point(7) = {-a, a, 0, lc};  Point(8) = {-a, -a, 0, lc}; Point(9) = {a, -a, 0, lc};
// channel points
Point(10) = {xl, -a, 0, lc}; Point(11) = {xl, a, 0, lc}; Point(12) = {xr, -a, 0, lc}; Point(13) = {xr, a, 0, lc};
Point(14) = {-a, yb, 0, lc}; Point(15) = {a, yb, 0, lc}; Point(16) = {-a, yt, 0, lc}; Point(17) = {a, yt, 0, lc};
Point(18) = {xl, yb, 0, lc}; Point(19) = {xr, yb, 0, lc}; Point(20) = {xr, yt, 0, lc}; Point(21) = {xl, yt, 0, lc};
// O-grid
Circle(1) = {2, 1, 3}; Circle(2) = {3, 1, 4}; Circle(3) = {4, 1, 5}; Circle(4) = {5, 1, 2};
Line(5) = {6, 7}; Line(6) = {7, 8}; Line(7) = {8, 9}; Line(8) = {9, 6};
Line(9) = {2, 6}; Line(10) = {3, 7}; Line(11) = {4, 8}; Line(12) = {5, 9};
// left, right, bottom, top blocks and the corners
Line(13) = {10, 8}; Line(14) = {11, 7}; Line(15) = {10, 11};
Line(16) = {9, 12}; Line(17) = {6, 13}; Line(18) = {12, 13};
Line(19) = {14, 8}; Line(20) = {15, 9}; Line(21) = {14, 15};
Line(22) = {7, 16}; Line(23) = {6, 17}; Line(24) = {16, 17};
Line(25) = {18, 10}; Line(26) = {18, 14};
Line(27) = {15, 19}; Line(28) = {19, 12};
Line(29) = {13, 20}; Line(30) = {17, 20};
Line(31) = {11, 21}; Line(32) = {21, 16};
Curve Loop(1) = {9, 5, -10, -1};   Plane Surface(1) = {1};   // top of the O-grid
Curve Loop(2) = {10, 6, -11, -2};  Plane Surface(2) = {2};   // left
Curve Loop(3) = {11, 7, -12, -3};  Plane Surface(3) = {3};   // bottom
Curve Loop(4) = {12, 8, -9, -4};   Plane Surface(4) = {4};   // right
Curve Loop(5) = {15, 14, 6, -13};  Plane Surface(5) = {5};   // left block
Curve Loop(6) = {16, 18, -17, -8}; Plane Surface(6) = {6};   // right block
Curve Loop(7) = {21, 20, -7, -19}; Plane Surface(7) = {7};   // bottom block
Curve Loop(8) = {-5, 23, -24, -22}; Plane Surface(8) = {8};  // top block
Curve Loop(9) = {26, 19, -13, -25}; Plane Surface(9) = {9};  // bottom-left corner
Curve Loop(10) = {27, 28, -16, -20}; Plane Surface(10) = {10}; // bottom-right corner
Curve Loop(11) = {17, 29, -30, -23}; Plane Surface(11) = {11}; // top-right corner
Curve Loop(12) = {14, 22, -32, -31}; Plane Surface(12) = {12}; // top-left corner
Transfinite Curve{1, 2, 3, 4, 5, 6, 7, 8, 15, 18, 21, 24} = nq + 1;
Transfinite Curve{9, 10, 11, 12} = nr + 1 Using Progression 1.1;
Transfinite Curve{13, 14, 26, 32} = nl + 1;
Transfinite Curve{16, 17, 27, 30} = nd + 1;
Transfinite Curve{19, 20, 22, 23, 25, 28, 29, 31} = nv + 1;
Transfinite Surface{1:12};
Recombine Surface{1:12};
Extrude {0, 0, 0.2} { Surface{1:12}; Layers{1}; Recombine; }
e = 1e-6;
Physical Surface("inlet") = Surface In BoundingBox{xl - e, yb - e, -e, xl + e, yt + e, 0.2 + e};
Physical Surface("outlet") = Surface In BoundingBox{xr - e, yb - e, -e, xr + e, yt + e, 0.2 + e};
Physical Surface("walls") = {Surface In BoundingBox{xl - e, yb - e, -e, xr + e, yb + e, 0.2 + e},
                             Surface In BoundingBox{xl - e, yt - e, -e, xr + e, yt + e, 0.2 + e}};
Physical Surface("cylinder") = Surface In BoundingBox{-R - e, -R - e, -e, R + e, R + e, 0.2 + e};
Physical Surface("front") = Surface In BoundingBox{xl - e, yb - e, -e, xr + e, yt + e, e};
Physical Surface("back") = Surface In BoundingBox{xl - e, yb - e, 0.2 - e, xr + e, yt + e, 0.2 + e};
Physical Volume("fluid") = Volume{:};
