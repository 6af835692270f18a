// (placeholder, being written) Lagrange equations in quaternion coordinates, document 001 chapter 2.
#pragma once
